package dashboard

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestOneDownloadAtATimePerPerson: an account's export and "Download my
// data" each read in one transaction that holds a pool connection until
// the file is written, and one owner's 20 exports at once held 20 of the
// process's 50 connections beside every tenant's moves. A person has one
// download written at a time: while ann's export waits (here on the audit
// log, which the test holds locked), her second export and her own data
// are refused at once with 429, Retry-After and a page saying why; bob,
// another account's owner, downloads his data meanwhile; once ann's export
// is written she may download again.
func TestOneDownloadAtATimePerPerson(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ann := b.account3("alpha-co", "Alpha", "ann@example.test")
	bob := b.account3("beta-co", "Beta", "bob@example.test")

	first, again, other := b.client(&ann), b.client(&ann), b.client(&bob)
	for _, cl := range []*client{first, again, other} {
		cl.get("/settings") // each its CSRF token
	}
	lock, err := pgx.Connect(b.ctx, b.pool.Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Close(context.Background()) })
	tx, err := lock.Begin(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(b.ctx, `LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		st, _, _ := first.post("/accounts/alpha-co/export", nil)
		done <- st
	}()
	for i := 0; ; i++ {
		n, err := pgtest.LockWaits(b.ctx, b.pool)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case st := <-done:
			t.Fatalf("ann's export answered %d before the audit log", st)
		default:
		}
		if i == 3000 {
			t.Fatal("ann's export never reached the audit log")
		}
		time.Sleep(10 * time.Millisecond)
	}

	const says = "A download you asked for is being written already. Try again in a minute, once it is done."
	for _, path := range []string{"/accounts/alpha-co/export", "/settings/my-data"} {
		st, _, body := again.post(path, nil)
		if st != http.StatusTooManyRequests || again.header.Get("Retry-After") != "60" || !strings.Contains(body, says) {
			t.Fatalf("ann's %s while her export is written: %d Retry-After %q\n%s", path, st, again.header.Get("Retry-After"), body)
		}
	}
	if st, _, body := other.post("/settings/my-data", nil); st != 200 || !strings.Contains(body, `"bob@example.test"`) {
		t.Fatalf("bob's data while ann's export is written: %d\n%s", st, body)
	}

	if err := tx.Rollback(b.ctx); err != nil {
		t.Fatal(err)
	}
	if st := <-done; st != 200 {
		t.Fatalf("ann's export: %d", st)
	}
	if st, _, body := again.post("/settings/my-data", nil); st != 200 || !strings.Contains(body, `"ann@example.test"`) {
		t.Fatalf("ann's data once her export was written: %d\n%s", st, body)
	}
}
