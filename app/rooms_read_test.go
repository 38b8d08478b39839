package app

import (
	"slices"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestReadKeepsViews: a read of a room nothing changed is served from the
// kept view, and everything a view depends on makes it read again: a move,
// the end of a cool-down (no move at all), the human's time zone; the
// statement that checks the seq also checks the caller's account.
func TestReadKeepsViews(t *testing.T) {
	rb := setupRooms(t)
	rb.rooms.pace = negotiation.Pace{Cooldown: time.Minute}
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	move := func(agent Agent, token string, v negotiation.Verdict, hour int) {
		t.Helper()
		if _, err := rb.rooms.Propose(rb.ctx, agent, token, MoveInput{Verdict: v, Subject: meeting(hour, "")}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(agent Agent, token string) *View {
		t.Helper()
		v, err := rb.rooms.Read(rb.ctx, agent, token)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	move(rb.a, ta, negotiation.VerdictOffer, 10)
	move(rb.b, tb, negotiation.VerdictCounter, 11)

	// a offered a moment ago: its cool-down holds its counter back.
	v1 := read(rb.a, ta)
	if v1.NextCounterAt == "" || slices.Contains(v1.Next.Verdicts, negotiation.VerdictCounter) {
		t.Fatalf("during the cool-down: next_counter_at %q, verdicts %v", v1.NextCounterAt, v1.Next.Verdicts)
	}
	if v2 := read(rb.a, ta); v2 != v1 {
		t.Fatal("a read of an unchanged room built its view again")
	}
	// The cool-down ends with no move: the kept view no longer holds.
	rb.advance(61 * time.Second)
	v3 := read(rb.a, ta)
	if v3.NextCounterAt != "" || !slices.Contains(v3.Next.Verdicts, negotiation.VerdictCounter) {
		t.Fatalf("after the cool-down: next_counter_at %q, verdicts %v", v3.NextCounterAt, v3.Next.Verdicts)
	}

	// b's view, kept, then a move by a: b sees it.
	b1 := read(rb.b, tb)
	if read(rb.b, tb) != b1 {
		t.Fatal("b's second read built its view again")
	}
	move(rb.a, ta, negotiation.VerdictCounter, 12)
	b2 := read(rb.b, tb)
	if len(b2.Rounds) != len(b1.Rounds)+1 || b2.Round != b1.Round+1 {
		t.Fatalf("after a's counter b reads %d rounds (round %d), had %d (round %d)", len(b2.Rounds), b2.Round, len(b1.Rounds), b1.Round)
	}

	// b's human moves to another time zone: the card follows.
	if err := NewAccounts(rb.pool).SetUserTimeZone(rb.ctx, rb.b.OwnerUserID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	if b3 := read(rb.b, tb); b3.TimeZone == nil || b3.TimeZone.String() != "Asia/Tokyo" {
		t.Fatalf("after the time zone changed b's view is in %v", b3.TimeZone)
	}

	// A kept view is never served to another account.
	if _, err := rb.rooms.Read(rb.ctx, rb.a, tb); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("a reading b's token: %v, want not found", err)
	}
	rb.checkClean(t)
}
