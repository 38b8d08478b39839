package app

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// waitForLockWaits waits until n of the test database's sessions wait
// for a lock (bounded).
func waitForLockWaits(t *testing.T, rb *roomsBundle, n int) {
	t.Helper()
	for range 2000 {
		got, err := pgtest.LockWaits(rb.ctx, rb.pool)
		if err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("fewer than %d sessions wait for a lock after 10 s", n)
}

// TestMoveWhileItsAccountsEndpointIsDeleted: a move reads its room, and
// with it the endpoints it writes messages for, then writes them. An
// owner deleting one of those endpoints in between (here: while the move
// waits for its room's row, which a test transaction holds) made the move
// fail on the messages' foreign key: the agent (or the human answering,
// or the sweep) got an internal error. The move now writes no message
// for an endpoint gone meanwhile, and goes through.
func TestMoveWhileItsAccountsEndpointIsDeleted(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	hooks := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, BaseURL: rb.rooms.baseURL})
	ep, _, err := hooks.CreateWebhook(rb.ctx, rb.a.OwnerUserID, "alpha", "https://hooks.example/a", []string{string(HookRoomMoved)})
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Read(rb.ctx, rb.a, ta)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(context.Background()) }()
	if _, err := hold.Exec(rb.ctx, `SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, v.RoomID); err != nil {
		t.Fatal(err)
	}
	moved := make(chan error, 1)
	go func() {
		_, err := rb.rooms.Propose(context.Background(), rb.a, ta, MoveInput{Verdict: negotiation.VerdictOffer, Subject: meeting(10, "")})
		moved <- err
	}()
	waitForLockWaits(t, rb, 1)
	if err := hooks.DeleteWebhook(rb.ctx, rb.a.OwnerUserID, "alpha", ep.ID); err != nil {
		t.Fatal(err)
	}
	if err := hold.Rollback(rb.ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-moved:
		if err != nil {
			t.Fatalf("the move: %v (%s)", err, ErrorCodeOf(err))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the move: no end after 20 s")
	}
	var n int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM webhook_messages WHERE endpoint_id = $1`, ep.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d messages for the deleted endpoint", n)
	}
	rb.checkClean(t)
}
