package app

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestRetentionWaitsForAnErasureOfItsAddresses: the retention's walk that
// forgets a person's address in the rooms that ended, and the person's
// erasure, which forgets it everywhere, each change the same seats,
// rooms, delivery lines and jobs by one statement, in no set order: at
// the same moment, PostgreSQL failed one of them with a deadlock (the
// person deleting their profile got an internal error). An erasure holds
// its address's lock (store_profile.go) before any row; the walk now
// takes the lock too, shared, before any row of the rooms it forgets:
// here, while a test transaction holds an erasure's lock on the address,
// the walk waits, holding no row of the room, and goes on after.
func TestRetentionWaitsForAnErasureOfItsAddresses(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const email = "pat@example.test"
	o, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, ""), InviteEmail: email})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, o.InviteCode, PersonAnswer{Verdict: negotiation.VerdictReject}); err != nil {
		t.Fatal(err)
	}
	room := o.View.RoomID
	hold, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(context.Background()) }()
	if err := lockAddresses(rb.ctx, hold, []string{email}); err != nil {
		t.Fatal(err)
	}
	ret := NewRetention(rb.pool, RetentionPeriods{OneTap: time.Hour})
	purged := make(chan error, 1)
	go func() {
		_, err := ret.PurgeOld(context.Background(), time.Now().Add(24*time.Hour), time.Now().Add(time.Minute))
		purged <- err
	}()
	waited := false
	for range 400 {
		select {
		case err := <-purged:
			t.Fatalf("the walk ended (%v) while an erasure held the address", err)
		default:
		}
		if waitForLockWaitsNow(t, rb) {
			waited = true
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !waited {
		t.Fatal("the walk neither ended nor waited after 2 s")
	}
	// It holds no row of the room: the erasure's statement would lock them.
	if _, err := hold.Exec(rb.ctx, `SELECT 1 FROM parties WHERE room_id = $1 FOR UPDATE NOWAIT`, room); err != nil {
		t.Fatalf("the seat, while the walk waits: %v", err)
	}
	if _, err := hold.Exec(rb.ctx, `SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE NOWAIT`, room); err != nil {
		t.Fatalf("the room, while the walk waits: %v", err)
	}
	if err := hold.Rollback(rb.ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-purged:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the walk: no end after 20 s")
	}
	var seat, invite *string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT (SELECT person_email FROM parties WHERE room_id = $1 AND side = 'b'),
		(SELECT invite_email FROM rooms WHERE id = $1)`, room).Scan(&seat, &invite); err != nil {
		t.Fatal(err)
	}
	if seat != nil || invite != nil {
		t.Errorf("after the walk: the seat's address %v, the invitation's %v; want both forgotten", seat, invite)
	}
}

// waitForLockWaitsNow says whether a session of the test database waits
// for a lock.
func waitForLockWaitsNow(t *testing.T, rb *roomsBundle) bool {
	t.Helper()
	var n int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}
