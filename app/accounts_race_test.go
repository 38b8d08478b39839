package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestOperatorCreatesAPersonCreatedAtOnce: `taasky member add` (or
// `account create`) for a person who does not exist yet, while another
// command creates the same person (a test transaction inserts them and
// commits once the command waits for it). The command's one statement
// waited for the other insert, did nothing on the conflict, and then
// looked the person up in the snapshot it took before that insert
// committed: no row, and the command failed with an internal error.
func TestOperatorCreatesAPersonCreatedAtOnce(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"member add", "account create"} {
		t.Run(cmd, func(t *testing.T) {
			b := setup(t) // parallel
			if _, err := b.accounts.CreateAccount(b.ctx, "acme", "Acme", "alice@example.test"); err != nil {
				t.Fatal(err)
			}
			hold, err := b.pool.Begin(b.ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = hold.Rollback(context.Background()) }()
			var held int64
			if err := hold.QueryRow(b.ctx, `INSERT INTO users (email) VALUES ('newcomer@example.test') RETURNING id`).Scan(&held); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				if cmd == "member add" {
					done <- b.accounts.AddMemberAsOperator(context.Background(), "acme", "newcomer@example.test", app.MemberRoleMember)
					return
				}
				_, err := b.accounts.CreateAccount(context.Background(), "beta", "Beta", "newcomer@example.test")
				done <- err
			}()
			for {
				n, err := pgtest.LockWaits(b.ctx, b.pool)
				if err != nil {
					t.Fatal(err)
				}
				if n >= 1 {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("the command did not wait for the other insert of the person: %v", err)
				case <-time.After(5 * time.Millisecond): // polling for the signal, not waiting for it to happen
				}
			}
			if err := hold.Commit(b.ctx); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("%s for a person created at the same moment: %v", cmd, err)
			}
			u, err := b.accounts.UserByEmail(b.ctx, "newcomer@example.test")
			if err != nil || u.ID != held {
				t.Fatalf("the person: %+v, %v; want the row created at once (%d)", u, err, held)
			}
			ms, err := b.accounts.Memberships(b.ctx, held)
			if err != nil || len(ms) != 1 {
				t.Fatalf("the person's memberships: %+v, %v", ms, err)
			}
		})
	}
}
