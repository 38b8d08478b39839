package trust

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// TestCallsAnsweredWhileThePrimaryHangs: the PostgreSQL primary stops
// answering without closing its connections (SIGSTOP here; a machine that
// vanished, or a stalled disk, alike), and the standby is promoted only
// later. Every MCP call made meanwhile is answered, with the advice to
// retry as a tool error (its key checked or not: go-sdk's client shows
// nothing of a 503's body), and so is a
// person's page and an OAuth token request (503 with Retry-After), not
// held, nor refused as if the client were unknown:
// before, a call that took one of the pool's connections to the hung
// primary waited as long as the connection lived (for ever here, a quarter
// of an hour for a vanished machine) and its agent, or person, was never
// answered.
// After the promotion the same process serves the calls again.
func TestCallsAnsweredWhileThePrimaryHangs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers and builds and runs the binary")
	}
	t.Parallel()
	pg := newPGPair(t)
	dsn := pg.DSN()
	p := newProcess(t, dsn, "MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0", "SHUTDOWN_GRACE=0")
	p.start()
	w := newWorld(t, dsn, p.base)
	a, b := newRemote(t, w, p.base, "hunga"), newRemote(t, w, p.base, "hungb")
	ctx := context.Background()
	// The agents' client waits a minute for an answer, well past the
	// server's bound on a call (and a read's wait).
	patient := func(r *remote) *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "patient-" + r.slug, Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.base + "/mcp/" + r.slug,
			HTTPClient: &http.Client{Transport: recorder{key: r.key, base: transport}, Timeout: time.Minute}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sess.Close() })
		return sess
	}
	sa, sb := patient(a), patient(b)
	must := func(sess *mcp.ClientSession, tool string, args map[string]any) result {
		t.Helper()
		res, err := callOn(ctx, sess, tool, args)
		if err != nil || res.err != "" {
			t.Fatalf("%s: %v %s", tool, err, res.err)
		}
		return res
	}
	open := must(sa, "negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(1)})
	ta := open.str("room_token")
	tb := must(sb, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema}).str("room_token")
	// Several calls at once: the pool keeps several connections open.
	done := make(chan struct{})
	for range 12 {
		go func() {
			defer func() { done <- struct{}{} }()
			_, _ = callOn(ctx, sa, "negotiation_read", map[string]any{"room_token": ta})
		}()
	}
	for range 12 {
		<-done
	}

	pids := pg.nodes[pg.prim].pids()
	if len(pids) == 0 {
		t.Fatal("the primary's postmaster.pid names no process")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
		}
	}
	t.Cleanup(resume) // before the pair is stopped
	answered := func(what string, sess *mcp.ClientSession, tool string, args map[string]any) {
		t.Helper()
		start := time.Now()
		res, err := callOn(ctx, sess, tool, args)
		switch {
		case err == nil && res.err == app.RetryMessage:
		default:
			t.Errorf("%s while the primary hangs: %v %q after %s; want the advice to retry", what, err, res.err, time.Since(start).Round(10*time.Millisecond))
			return
		}
		t.Logf("%s while the primary hangs: told to retry after %s", what, time.Since(start).Round(10*time.Millisecond))
	}
	// A person's page (one-tap links need no sign-in) and a read at once,
	// right away: each takes one of the pool's connections to the hung
	// primary.
	page := func() {
		start := time.Now()
		resp, err := (&http.Client{Timeout: time.Minute}).Get(p.base + "/c/ot_" + strings.Repeat("A", 43))
		if err != nil {
			t.Errorf("a one-tap page while the primary hangs: %v after %s; want 503 with Retry-After", err, time.Since(start).Round(10*time.Millisecond))
			return
		}
		readBody(resp)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("a one-tap page while the primary hangs: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		t.Logf("a one-tap page while the primary hangs: %d after %s", resp.StatusCode, time.Since(start).Round(10*time.Millisecond))
	}
	var both sync.WaitGroup
	both.Go(page)
	both.Go(func() { answered("the first read", sa, "negotiation_read", map[string]any{"room_token": ta}) })
	both.Wait()
	for i := range 3 {
		answered("a read", sa, "negotiation_read", map[string]any{"room_token": ta})
		if i == 0 {
			answered("a counter", sb, "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(2)})
			answered("a waiting read", sa, "negotiation_read", map[string]any{"room_token": ta, "wait_seconds": 2})
		}
	}

	// An MCP client refreshing its OAuth token meanwhile is told to send
	// it again, not that it is unknown (invalid_client: the client would
	// throw its registration and tokens away and ask its person to connect
	// again).
	start := time.Now()
	resp, err := (&http.Client{Timeout: time.Minute}).PostForm(p.base+"/oauth/token",
		url.Values{"grant_type": {"refresh_token"}, "client_id": {"cl_hung"}, "refresh_token": {"ory_rt_hung.hung"}})
	if err != nil {
		t.Errorf("a token refresh while the primary hangs: %v after %s; want 503 with Retry-After", err, time.Since(start).Round(10*time.Millisecond))
	} else if body := readBody(resp); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a token refresh while the primary hangs: %d, Retry-After %q: %s; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	// The standby takes over; the hung primary stays as it is (it is
	// never heard from again).
	pg.prim = 1 - pg.prim
	next := pg.nodes[pg.prim]
	pg.sql(next, "postgres", `ALTER SYSTEM SET synchronous_standby_names = ''`)
	pg.sql(next, "postgres", `SELECT pg_reload_conf()`)
	pg.pg("pg_ctl", "-D", next.dir, "-w", "-t", "60", "promote")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		res, err := callOn(ctx, sb, "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(2)})
		if err == nil && res.err == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no move a minute after the promotion: %v %s", err, res.err)
		}
	}
	if got := must(sa, "negotiation_read", map[string]any{"room_token": ta}); got.str("turn") != "you" {
		t.Errorf("after the promotion a's turn is %q, want you (b's counter)", got.str("turn"))
	}
}
