package app

import (
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestRetriedMovesAfterTheRoomMovedOn: a move sent again after the room
// moved on (the other side answered, the human confirmed) is answered with
// its first result as it stands now, not refused (DESIGN §3); a move that
// is legal now is played, and one that repeats nothing is still refused.
func TestRetriedMovesAfterTheRoomMovedOn(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	// A's offer again, after B countered: the room as it is.
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatalf("A's retried offer after B's counter: %v", err)
	}
	if v.Round != 2 || len(v.Rounds) != 2 || v.Turn == nil || *v.Turn != "you" {
		t.Fatalf("the retried offer changed the room: round %d, %d rounds, turn %v", v.Round, len(v.Rounds), v.Turn)
	}
	// Another offer is no retry: refused.
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(12, "")}); err == nil {
		t.Fatal("a different offer on a table with terms was accepted")
	}
	// B's counter again, now that the turn is A's: the room as it is.
	if v, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")}); err != nil || v.Round != 2 {
		t.Fatalf("B's retried counter: %v", err)
	}
	// A counter with A's first terms is a new move, legal now: played.
	v, err = rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "counter", Subject: meeting(10, "")})
	if err != nil || v.Round != 3 || len(v.Rounds) != 3 {
		t.Fatalf("A's counter re-proposing its terms: %v (round %d)", err, v.Round)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash

	// B approves, Bob confirms; B's approve again is answered with that
	// confirmation, decided, not "not your turn".
	approve, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	if d := rb.confirm(t, rb.b, tb, approve); d.Result != negotiation.ResultApplied {
		t.Fatalf("Bob's confirmation: %v", d.Result)
	}
	again, view, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatalf("B's retried approve after Bob confirmed: %v", err)
	}
	if again.ID != approve.ID || again.Outcome != negotiation.ResultApplied || again.SubjectHash != hash || view.PendingConfirmation != nil {
		t.Fatalf("the retried approve: %+v (first %+v)", again, approve)
	}
	// A reject from B repeats nothing: refused as it is.
	if _, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictReject, ""); err == nil || err.Error() != "not your turn" {
		t.Fatalf("B's reject out of turn: %v", err)
	}

	// A cancels, Alice confirms: the room is closed; A's cancel again is
	// answered with that confirmation, B's first cancel is refused.
	first, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	rb.confirm(t, rb.a, ta, first)
	again, view, err = rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatalf("A's retried cancel after Alice confirmed: %v", err)
	}
	if again.ID != first.ID || again.Outcome != negotiation.ResultApplied || view.State != negotiation.StateClosed {
		t.Fatalf("the retried cancel: %+v in a %s room", again, view.State)
	}
	if _, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictCancel, ""); err == nil || err.Error() != "room is closed" {
		t.Fatalf("B's cancel of a closed room: %v", err)
	}
	// A retried approve of B's, in the closed room: still its confirmation.
	if again, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash); err != nil || again.ID != approve.ID || again.Outcome != negotiation.ResultApplied {
		t.Fatalf("B's approve again in the closed room: %v", err)
	}
	rb.checkClean(t)
}

// TestRetriedRequestAfterADeclineAsksAgain: a decline leaves the room as
// it was, so the same approve sent again is a legal move: it asks the
// human again (a new confirmation), it is not answered with the old one.
func TestRetriedRequestAfterADeclineAsksAgain(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	first, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := rb.rooms.DecideAsOwner(rb.ctx, rb.b.OwnerUserID, v.RoomID, first.ID, hash, false); err != nil || d.Result != negotiation.ResultDeclined {
		t.Fatalf("Bob's no: %v", err)
	}
	again, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, negotiation.VerdictApprove, hash)
	if err != nil || again.ID == first.ID || again.Outcome != "" {
		t.Fatalf("the approve after the decline: %+v, %v", again, err)
	}
	rb.checkClean(t)
}
