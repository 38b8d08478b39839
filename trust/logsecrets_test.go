package trust

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
)

// TestFailedPagesLogNoCapability: taasky serve, its log captured. A
// stranger's invitation page fails twice: once on a statement the database
// refuses (logged at ERROR), once while the database is away (a 503,
// logged at WARN). Each line names the route, never the invitation code:
// the path of an invitation, a one-tap link or a seat is a working
// capability, and logs are read by more people, for longer, than the rooms.
func TestFailedPagesLogNoCapability(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn, proxy, p := processBehindCutter(t)
	p.start()
	w := newWorld(t, dsn, p.base)
	a := newRemote(t, w, p.base, "logs-a")
	ctx := context.Background()
	open, err := callOn(ctx, a.sess, "negotiation_open", map[string]any{"subject_schema": raceSchema})
	if err != nil || open.err != "" {
		t.Fatalf("open: %v %s", err, open.err)
	}
	code := open.str("invite_code")
	if code == "" {
		t.Fatalf("no invite_code in %+v", open)
	}
	if st, _ := p.get("/i/" + code); st != 200 {
		t.Fatalf("the invitation page: %d", st)
	}

	if _, err := w.pool.Exec(ctx, `ALTER TABLE accounts RENAME TO accounts_away`); err != nil {
		t.Fatal(err)
	}
	st, _ := p.get("/i/" + code)
	if _, err := w.pool.Exec(ctx, `ALTER TABLE accounts_away RENAME TO accounts`); err != nil {
		t.Fatal(err)
	}
	if st != 500 {
		t.Errorf("the invitation page with a statement refused: %d, want 500", st)
	}

	proxy.cut()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, _ := p.get("/i/" + code); st == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the invitation page never answered 503 with the database away")
		}
		time.Sleep(100 * time.Millisecond)
	}
	proxy.restore()

	// The log comes through a pipe: wait for both lines.
	wants := []string{`"msg":"dashboard request failed","component":"dashboard","method":"GET","path":"/i/:code"`,
		`"msg":"dashboard request: the database did not answer","component":"dashboard","method":"GET","path":"/i/:code"`}
	logs := p.logs()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); logs = p.logs() {
		if strings.Contains(logs, wants[0]) && strings.Contains(logs, wants[1]) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(logs, code) {
		t.Errorf("taasky serve's log holds the invitation code %s:\n%s", code, logs)
	}
	for _, want := range wants {
		if !strings.Contains(logs, want) {
			t.Errorf("the log has no %s:\n%s", want, logs)
		}
	}

	// /metrics, which answers whoever reaches the listener: no code, and
	// Taasky's series carry only labels of a fixed set of values (a tool,
	// a job kind, an outcome, a bucket, one of the installation's job
	// queues, a door's route and the code's word for a refusal), never a
	// room, an account or a token, so their number does not grow with use.
	st, metrics := p.get("/metrics")
	if st != 200 || strings.Contains(metrics, code) {
		t.Errorf("/metrics: %d, or it holds the code:\n%s", st, metrics)
	}
	for _, line := range strings.Split(metrics, "\n") {
		if !strings.HasPrefix(line, "taasky_") {
			continue
		}
		_, labels, _ := strings.Cut(line, "{")
		labels, _, _ = strings.Cut(labels, "}")
		for _, l := range strings.Split(labels, ",") {
			name, value, _ := strings.Cut(l, "=")
			switch {
			case l == "" || name == "tool" || name == "outcome" || name == "kind" || name == "le":
			case name == "queue" && slices.Contains(jobs.QueueNames, strings.Trim(value, `"`)):
			case name == "route" && (value == `"mcp"` || refusalWord.MatchString(strings.TrimPrefix(value, `"oauth_`))):
			case name == "reason" && refusalWord.MatchString(strings.TrimPrefix(value, `"`)):
			default:
				t.Errorf("/metrics: a label %q: %s", name, line)
			}
		}
	}
}

// refusalWord is the rest of a refusal's route after "oauth_", or its
// reason, as the code names them (taasky_requests_refused_total):
// lower-case words, never anything a request carried.
var refusalWord = regexp.MustCompile(`^[a-z]+(_[a-z]+)*"$`)
