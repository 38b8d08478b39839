package app

import (
	"strings"
	"testing"
)

// TestRequestMailSaysTheOtherSideApproved: once b's human approved the
// terms, a's request mail and a's one-tap card say that a's approval agrees
// the room; b's own request mail (nothing approved yet) did not. The terms
// are a's own, so a is not asked to check them through a new form.
func TestRequestMailSaysTheOtherSideApproved(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	ta, tb, v := nb.offerWithLimits(t, "Quarterly review")
	hash := v.TermsOnTable.Options[0].SubjectHash
	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "approve", hash); err != nil {
		t.Fatal(err)
	}
	const agrees = "The other side approved these terms: if you approve, they are agreed."
	mb := nb.mailTo(t, "beta@example.test", 1)
	if strings.Contains(mb.Text, agrees) {
		t.Fatalf("b's mail says a approved:\n%s", mb.Text)
	}
	m := oneTapLink.FindStringSubmatch(mb.Text)
	if m == nil {
		t.Fatal("no one-tap link for b")
	}
	if _, err := nb.rooms.DecideOneTap(nb.ctx, m[1], hash, true); err != nil {
		t.Fatal(err)
	}

	if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, "approve", hash); err != nil {
		t.Fatal(err)
	}
	ma := nb.mailTo(t, "alpha@example.test", 1)
	for _, part := range []string{ma.Text, ma.HTML} {
		if !strings.Contains(part, agrees) {
			t.Errorf("a's mail does not say b approved:\n%s", part)
		}
		if strings.Contains(part, "have not agreed under before") {
			t.Errorf("a's mail asks a to check a new form on a's own terms:\n%s", part)
		}
	}
	link := oneTapLink.FindStringSubmatch(ma.Text)
	if link == nil {
		t.Fatal("no one-tap link for a")
	}
	card, err := nb.rooms.OneTapCard(nb.ctx, link[1])
	if err != nil || card.Card == nil || !card.Card.Agrees || card.Card.NewSchema {
		t.Fatalf("a's one-tap card: %v %+v", err, card)
	}
}
