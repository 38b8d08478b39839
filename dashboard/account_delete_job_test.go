package dashboard

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/jobs"
)

// workDeletions works the accounts' deletion jobs (jobs.AccountDeleteArgs)
// by River, as the service's worker role does.
func (b *bundle) workDeletions(t *testing.T) {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.AccountDeleteWorker{Accounts: b.rooms})
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers, TestOnly: true,
		Queues: jobs.Queues(2, 1), FetchOnlyKnownKinds: true,
		FetchCooldown: 5 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rc.Stop(ctx)
	})
}

// waitAccountGone waits (at most 20 s) until the deletion's job erased the
// account with slug.
func (b *bundle) waitAccountGone(t *testing.T, slug string) {
	t.Helper()
	for range 400 {
		var n int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM accounts WHERE slug = $1`, slug).Scan(&n); err != nil {
			t.Fatal(err)
		} else if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the account %s is still there: its deletion's job did not finish", slug)
}
