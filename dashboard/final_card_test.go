package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestFinalCardSaysNothingOfApproving: terms outside the reader's limits
// carry "approving means accepting it anyway" while they can be approved;
// once the room is agreed or closed nothing is left to approve and the
// note goes (the field's "outside your limits" tag stays, a fact). Before,
// a closed room still told its human what approving would mean.
func TestFinalCardSaysNothingOfApproving(t *testing.T) {
	t.Parallel()
	b := setup(t)
	bob := b.client(&b.bob)
	const note = "approving means accepting it anyway"
	limits := `{"fee":{"max":{"amount":"10.00","currency":"EUR"}}}`
	page := func(roomID int64) string {
		t.Helper()
		st, _, body := bob.get(fmt.Sprintf("/rooms/%d?side=b", roomID))
		if st != 200 {
			t.Fatalf("room page: %d", st)
		}
		return body
	}

	// asked: alpha offers terms outside bob's limits; bob is asked to approve them.
	asked := func(title string, day int) (ta string, roomID int64, hash negotiation.SubjectHash, cid string) {
		t.Helper()
		ta, tb, roomID := b.joined(title, nil, limits)
		v, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(day, 9, "video", "20")))
		if err != nil {
			t.Fatal(err)
		}
		hash = v.TermsOnTable.Options[0].SubjectHash
		cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "approve", hash)
		if err != nil {
			t.Fatal(err)
		}
		return ta, roomID, hash, cv.ID
	}

	// Agreed: bob approves terms outside his limits, then alice.
	ta, agreedID, hash, cid := asked("Agreed outside", 9)
	if body := page(agreedID); !strings.Contains(body, note) {
		t.Fatal("while bob is asked, the card does not say what approving means")
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.bob.ID, agreedID, cid, hash, true); err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "approve", hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, agreedID, cv.ID, hash, true); err != nil {
		t.Fatal(err)
	}
	body := page(agreedID)
	if !strings.Contains(body, `data-state="agreed"`) || strings.Contains(body, note) || !strings.Contains(body, "outside your limits") {
		t.Fatalf("agreed room: the note stays or the tag went:\n%s", body)
	}

	// Closed: alpha withdraws while bob is asked.
	ta, closedID, _, _ := asked("Closed outside", 10)
	cv, _, err = b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, closedID, cv.ID, "", true); err != nil {
		t.Fatal(err)
	}
	body = page(closedID)
	if !strings.Contains(body, `data-state="closed"`) || strings.Contains(body, note) || !strings.Contains(body, "outside your limits") {
		t.Fatalf("closed room: the note stays or the tag went:\n%s", body)
	}
}
