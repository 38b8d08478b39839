package trust

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify/notifytest"
)

// leaseLocks counts the worker leases held on the test's database (the
// advisory locks of app/store_leases.go, first key "taak").
const leaseLocks = `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = 1952538987
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`

// hungSMTP accepts connections and never says a word: a send to it hangs
// (until the sender's own timeout), so the job stays running.
func hungSMTP(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestRescueAfterKill: a confirmation email held by a worker killed with
// SIGKILL goes out within seconds of another worker being up, once; and a
// job that a live worker runs long is not taken from it.
func TestRescueAfterKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	smtp := notifytest.NewSMTPServer(t)
	a := newProcess(t, dsn, "SMTP_URL=smtp://"+hungSMTP(t), "MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0")
	a.start()
	w := newWorld(t, dsn, a.base)
	l := newCrashLoad(t, w)
	ra, rb := newRemote(t, w, a.base, "rescue0"), newRemote(t, w, a.base, "rescue1")
	if err := l.negotiate(context.Background(), ra, rb, 0); err != nil || len(l.pending) != 1 {
		t.Fatalf("negotiate: %v (%d confirmations left waiting)", err, len(l.pending))
	}
	cid := l.pending[0]

	// The request's email is running on A, hung on its SMTP server. Past
	// the rescue's confirmation wait, A's live lease keeps it A's.
	const held = `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND state = 'running' AND attempt = 1 AND attempted_at < now() - $1::interval`
	deadline := time.Now().Add(60 * time.Second)
	for countRows(t, w, held, "7 seconds") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no email job has run 7 s on the worker with the hung SMTP server")
		}
		time.Sleep(100 * time.Millisecond)
	}
	running := countRows(t, w, `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND state = 'running'`)

	killed := time.Now()
	a.kill()
	for countRows(t, w, leaseLocks) != 0 { // the server saw A's session end
		if time.Since(killed) > 30*time.Second {
			t.Fatal("A's lease is still held 30 s after its kill")
		}
		time.Sleep(20 * time.Millisecond)
	}
	b := newProcess(t, dsn, fmt.Sprintf("SMTP_URL=smtp://%s:%d", smtp.Host, smtp.Port))
	b.args = []string{"--web=false"}
	b.ready = func() bool { return countRows(t, w, leaseLocks) == 1 }
	b.start()
	up := time.Now()

	var sent time.Time
	for sent.IsZero() {
		if time.Since(up) > 2*time.Minute {
			t.Fatalf("the confirmation request held by the killed worker was not sent 2 min after another worker was up")
		}
		for _, m := range smtp.Mails() {
			if requestFor(t, w, m.Data) == cid {
				sent = m.AcceptedAt
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for countRows(t, w, `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND state NOT IN ('completed', 'discarded', 'cancelled')`) > 0 {
		if time.Since(up) > 2*time.Minute {
			t.Fatal("email jobs unfinished 2 min after another worker was up")
		}
		time.Sleep(50 * time.Millisecond)
	}
	byID := map[string]int{}
	for _, m := range smtp.Mails() {
		hdr, _, err := readMail(m.Data)
		if err != nil {
			t.Fatal(err)
		}
		byID[hdr.Get("Message-Id")]++
	}
	twice := 0
	for id, n := range byID {
		if n > 1 {
			twice += n - 1
			t.Errorf("message %s sent %d times", id, n)
		}
	}
	t.Logf("rescue: %d email jobs running on the killed worker; its confirmation request sent %s after the kill, %s after another worker was up "+
		"(its lease held within %s of the kill's end); %d mails, %d sent twice; a job run 7 s by a live worker was left to it",
		running, sent.Sub(killed).Round(10*time.Millisecond), sent.Sub(up).Round(10*time.Millisecond), up.Sub(killed).Round(10*time.Millisecond), len(smtp.Mails()), twice)
}

// requestFor is the confirmation a mail's one-tap link answers ("" if none).
func requestFor(t testing.TB, w *world, raw []byte) string {
	_, body, err := readMail(raw)
	if err != nil {
		return ""
	}
	tok := oneTapLink.FindStringSubmatch(body)
	if tok == nil {
		return ""
	}
	var cid string
	h := sha256Of(tok[1])
	if err := w.pool.QueryRow(context.Background(), `SELECT confirmation_id FROM onetap_tokens WHERE token_hash = $1`, h).Scan(&cid); err != nil {
		return ""
	}
	return cid
}

func sha256Of(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
