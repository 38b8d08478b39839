package app

import (
	"testing"

	"github.com/taasky/taasky/internal/netguard"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestWebhooksWhileTheAccountIsDeleted: an owner deletes the account while
// another turns an endpoint back on (one the account had disabled after
// failures, and one it had not) and adds a new one. The deletion disables
// the account's endpoints, so that the rooms it closes send them nothing;
// the webhook actions read the account and the actor's role before the
// deletion committed, then wrote after it: the endpoints were on again,
// and the new one on, in an account being deleted. A test transaction
// holds the deletion after it disabled the endpoints (a table it writes
// next), so each action reads before it and writes after (or waits for
// it), whatever the timing.
func TestWebhooksWhileTheAccountIsDeleted(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	w := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, CheckHost: netguard.CheckHost})
	owner := rb.a.OwnerUserID
	all := eventStrings(WebhookEvents)
	failing, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/failing", all)
	if err != nil {
		t.Fatal(err)
	}
	working, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/working", all)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE webhook_endpoints SET disabled_at = now(), disabled_why = 'failing' WHERE id = $1`, failing.ID); err != nil {
		t.Fatal(err)
	}
	// The test's own connections: the service's pool (4) is the deletion's
	// and the three actions'.
	hold := pgtest.HoldLock(t, rb.pool, `LOCK TABLE account_invitations IN SHARE MODE`)
	deleted := make(chan error, 1)
	go func() {
		_, err := rb.rooms.DeleteAccount(rb.ctx, owner, "alpha", "alpha")
		deleted <- err
	}()
	hold.WaitFor(1, "the deletion") // it disabled the endpoints and waits for the table
	actions := []func() error{
		func() error { return w.EnableWebhook(rb.ctx, owner, "alpha", failing.ID) },
		func() error { return w.EnableWebhook(rb.ctx, owner, "alpha", working.ID) },
		func() error {
			_, _, err := w.CreateWebhook(rb.ctx, owner, "alpha", "https://93.184.216.34/new", all)
			return err
		},
	}
	done := make(chan error, len(actions))
	for _, act := range actions {
		go func() { done <- act() }()
	}
	// Each action either ended (the failing endpoint's, before the fix) or
	// waits behind the deletion.
	hold.WaitForOr(1+len(actions), func() bool { return hold.Waiting()+len(done) >= 1+len(actions) }, "the actions beside the deletion")
	hold.Release()
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	for range actions {
		err := <-done
		if err != nil && (ErrorCodeOf(err) != ErrNotFound || ErrorMessageOf(err) == "") {
			t.Errorf("an action beside the deletion: %v", err)
		}
	}
	var on int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM webhook_endpoints WHERE account_id = $1 AND disabled_at IS NULL`,
		rb.a.AccountID).Scan(&on); err != nil {
		t.Fatal(err)
	}
	if on != 0 {
		t.Fatalf("%d endpoints on in an account being deleted, want 0", on)
	}
}
