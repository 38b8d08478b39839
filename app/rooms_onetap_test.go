package app

import (
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestOneTap: a GET (OneTapCard) changes nothing; the POST (DecideOneTap)
// applies the answer once, bound to the hash shown; a second use says so.
func TestOneTap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, `{"fee":{"max":{"amount":"10.00","currency":"EUR"}}}`)
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "20")})
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	token, err := rb.rooms.IssueOneTap(rb.ctx, rb.pool, v.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		card, err := rb.rooms.OneTapCard(rb.ctx, token)
		if err != nil {
			t.Fatal(err)
		}
		if card.Confirmation == nil || card.Card == nil || card.Side != negotiation.SideB || card.UsedAt != nil {
			t.Fatalf("one-tap card: %+v", card)
		}
		if f := card.Card.Options[0].Fields; len(f) < 2 || f[1].Name != "fee" || len(f[1].Outside) != 1 {
			t.Fatalf("b's card flags the fee above b's max: %+v", f)
		}
	}
	if _, err := rb.rooms.DecideOneTap(rb.ctx, token, "sha256:00", true); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("an answer for other terms: %v", err)
	}
	// The refused answer rolled back: the link still works, once.
	d, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true)
	if err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("one-tap confirm: %v %+v", err, d)
	}
	if _, err := rb.rooms.DecideOneTap(rb.ctx, token, cv.SubjectHash, true); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("second use: %v", err)
	}
	card, err := rb.rooms.OneTapCard(rb.ctx, token)
	if err != nil || card.Status != negotiation.ResultApplied || card.UsedAt == nil || card.Confirmation != nil {
		t.Fatalf("after use: %v %+v", err, card)
	}
	if _, err := rb.rooms.OneTapCard(rb.ctx, "ot_nope"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("unknown token: %v", err)
	}
	rb.checkClean(t)
}
