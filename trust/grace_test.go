package trust

import (
	"bufio"
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestLivePageThroughTheGrace: a live page open on a node that gets
// SIGTERM stays live through SHUTDOWN_GRACE, while the load balancer takes
// the node out: its stream still tells of a move made through another
// node, and it ends, cleanly, only as the listener closes (the browser
// then opens it again on another node). Before, the signal ended every
// stream at once, and each stream opened again on the node in its grace
// said it was live and ended at once, every 1.5 s, each time making its
// page fetch itself again.
func TestLivePageThroughTheGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	issuer := newIssuer(t)
	env := []string{"OIDC_ISSUER=" + issuer.url, "OIDC_CLIENT_ID=dash", "OIDC_CLIENT_SECRET=dash-secret",
		"MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0"}
	// The pages' node waits long enough for the test's steps, however
	// slow the machine; the agents' node stops at once.
	pages := newProcess(t, dsn, append(env, "SHUTDOWN_GRACE=15s")...)
	agents := newProcess(t, dsn, append(env, "SHUTDOWN_GRACE=0")...)
	pages.args = []string{"--worker=false"}
	issuer.serve(pages.base, agents.base)
	pages.start()
	agents.start()
	w := newWorld(t, dsn, pages.base)
	a, b := newRemote(t, w, agents.base, "gracea"), newRemote(t, w, agents.base, "graceb")
	ctx := context.Background()
	call := func(r *remote, tool string, args map[string]any) result {
		t.Helper()
		res, err := callOn(ctx, r.session(), tool, args)
		if err != nil || res.err != "" {
			t.Fatalf("%s %s: %v %s", r.slug, tool, err, res.err)
		}
		return res
	}
	open := call(a, "negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(1)})
	tb := call(b, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema}).str("room_token")

	jar, _ := cookiejar.New(nil)
	signIn(t, jar, pages.base, a.email)
	person := &http.Client{Jar: jar, Transport: transport}
	// The rooms list's stream, one connection, read line by line.
	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, pages.base+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := person.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("open the stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 64)
	ended := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		ended <- sc.Err()
	}()
	await := func(what, want string) {
		t.Helper()
		timeout := time.After(time.Minute)
		for {
			select {
			case l := <-lines:
				if l == want {
					return
				}
			case err := <-ended:
				t.Fatalf("%s: the stream ended (%v) before %q", what, err, want)
			case <-timeout:
				t.Fatalf("%s: no %q in a minute", what, want)
			}
		}
	}
	await("the stream opens", ": live")

	pages.mu.Lock()
	cmd, done := pages.cmd, pages.done
	pages.mu.Unlock()
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for st, _ := pages.get("/readyz"); st != http.StatusServiceUnavailable; st, _ = pages.get("/readyz") {
		if st == 0 {
			t.Fatal("the pages' node stopped listening before its grace")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// In the grace: a move through the other node is heard.
	call(b, "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(2)})
	await("a move made on the other node during the grace", "event: change")
	if st, _ := pages.get("/readyz"); st != http.StatusServiceUnavailable {
		t.Fatalf("the grace was over before the move was heard (/readyz %d): raise SHUTDOWN_GRACE", st)
	}

	// The stream ends as the process stops, with its end, not a reset.
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the stream was cut: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the stream did not end a minute after the signal")
	}
	endedAt := time.Since(signalled)
	select {
	case <-done:
		t.Logf("the stream ended %s after the signal, the node stopped %s after it", endedAt.Round(10*time.Millisecond), time.Since(signalled).Round(10*time.Millisecond))
	case <-time.After(time.Minute):
		t.Fatal("the pages' node did not stop a minute after the stream ended")
	}
	if out := pages.logs(); strings.Contains(out, `"level":"ERROR"`) {
		t.Errorf("the pages' node logged an error while it stopped:\n%s", tail(out, 3000))
	}
}

// TestSignInDuringTheGrace: a person signing in on a node in its
// SHUTDOWN_GRACE is signed in, as any request then is served. Before, the
// signal also ended the context the OIDC provider is discovered and its
// keys fetched under: the node's first sign-in after it answered
// "Something is wrong" ("terminated signal received").
func TestSignInDuringTheGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	issuer := newIssuer(t)
	p := newProcess(t, dsn, "OIDC_ISSUER="+issuer.url, "OIDC_CLIENT_ID=dash", "OIDC_CLIENT_SECRET=dash-secret", "SHUTDOWN_GRACE=15s")
	p.args = []string{"--worker=false"}
	issuer.serve(p.base)
	p.start()
	w := newWorld(t, dsn, p.base)
	if _, err := w.accounts.CreateAccount(context.Background(), "gracein", "Tenant gracein", "gracein@example.test"); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for st, _ := p.get("/readyz"); st != http.StatusServiceUnavailable; st, _ = p.get("/readyz") {
		if st == 0 {
			t.Fatal("the node stopped listening before its grace")
		}
		time.Sleep(20 * time.Millisecond)
	}
	jar, _ := cookiejar.New(nil)
	signIn(t, jar, p.base, "gracein@example.test")
	if st, _ := p.get("/readyz"); st != http.StatusServiceUnavailable {
		t.Fatalf("the grace was over before the sign-in ended (/readyz %d): raise SHUTDOWN_GRACE", st)
	}
}
