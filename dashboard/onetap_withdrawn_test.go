package dashboard

import (
	"strings"
	"testing"
)

// TestOneTapLinkOfAWithdrawnRequest: the agent's counter took the terms it
// asked its human to approve off the table before they answered; the
// request's link says the request was withdrawn and why, not that "your
// answer" applied to nothing (they gave none).
func TestOneTapLinkOfAWithdrawnRequest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tb, _, token := b.askedToApprove(t, "fee talk", "", meeting(4, 9, "video", "20"))
	if _, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(4, 10, "video", "25"))); err != nil {
		t.Fatal(err)
	}
	anyone := b.client(nil)
	st, _, body := anyone.get("/c/" + token)
	if st != 200 || strings.Contains(body, "Your answer") || !strings.Contains(body, "withdrawn before you answered: the terms on the table changed") {
		t.Errorf("GET of a withdrawn request's link: %d %s", st, body)
	}
}
