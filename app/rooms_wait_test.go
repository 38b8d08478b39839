package app

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestReadWaitPollsWhileDeaf: while the process hears no room changes (its
// LISTEN connection lost), a waiting read looks at its room every second
// and still answers with the other side's move. No listener runs here, so
// nothing wakes the wait: only its looking can see the move. Its context
// ends well before the wait does, and a wait that never looked again
// would answer then with the view it had (b's turn).
func TestReadWaitPollsWhileDeaf(t *testing.T) {
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: negotiation.VerdictOffer, Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	changes := rb.rooms.RoomChanges(nil)
	changes.Heard(true)
	changes.Heard(false) // the listener connected, then lost its connection

	ctx, cancel := context.WithTimeout(rb.ctx, MaxWait/2)
	defer cancel()
	type answer struct {
		v   *View
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := rb.rooms.ReadWait(ctx, rb.a, ta, MaxWait)
		done <- answer{v, err}
	}()
	// The wait has begun once it is registered.
	for !rb.waitsOn(ta) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if _, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: negotiation.VerdictCounter, Subject: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if ctx.Err() != nil || got.v.Turn == nil || *got.v.Turn != "you" || got.v.Round != 2 {
		t.Fatalf("the deaf wait missed b's counter: context %v, turn %v, round %d", ctx.Err(), got.v.Turn, got.v.Round)
	}
}

// waitsOn reports whether a read waits on the room of a's token.
func (rb *roomsBundle) waitsOn(token string) bool {
	v, err := rb.rooms.Read(rb.ctx, rb.a, token)
	if err != nil {
		return false
	}
	w := &rb.rooms.waiters
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.rooms[v.RoomID]) > 0
}
