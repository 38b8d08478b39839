package dashboard

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestCancelALeaversRoom: Mo, a member of beta, leaves a room his agent
// joined; Bob, beta's owner, finds on its page that nobody moves that side
// any more and cancels it there: the room closes as cancelled (alpha's
// human is told by the closed notice, TestOwnersCancelALeaversRoom). A
// form without a side is refused, naming the field; a second cancel is
// refused as closed already; alpha's owner, who sees the room from her
// side, is offered no cancel.
func TestCancelALeaversRoom(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mo, _, _, j := b.moJoinsForBeta(t)
	roomID := j.View.RoomID
	if err := b.accounts.RemoveMember(b.ctx, b.bob.ID, "beta", mo.ID); err != nil {
		t.Fatal(err)
	}
	bob := b.client(&b.bob)
	page := fmt.Sprintf("/rooms/%d?side=b", roomID)
	if st, _, body := bob.get(page); st != 200 || !strings.Contains(body, "data-cancel-seat") {
		t.Fatalf("Bob's page of the room Mo left: %d\n%s", st, body)
	}
	if _, _, body := b.client(&b.alice).get(fmt.Sprintf("/rooms/%d", roomID)); strings.Contains(body, "data-cancel-seat") {
		t.Fatalf("alpha's owner is offered to cancel beta's side:\n%s", body)
	}
	cancel := fmt.Sprintf("/rooms/%d/cancel", roomID)
	if st, _, body := bob.post(cancel, url.Values{"side": {"c"}}); st != 400 || !strings.Contains(body, "side: must be a or b") {
		t.Fatalf("a cancel with no side: %d\n%s", st, body)
	}
	if st, loc, _ := bob.post(cancel, url.Values{"side": {"b"}}); st != 303 || loc != page {
		t.Fatalf("the cancel: %d %q", st, loc)
	}
	st, _, body := bob.get(page)
	if st != 200 || !strings.Contains(body, `data-state="closed"`) || strings.Contains(body, "data-cancel-seat") {
		t.Fatalf("the room after the cancel: %d\n%s", st, body)
	}
	if st, _, body := bob.post(cancel, url.Values{"side": {"b"}}); st != 409 || !strings.Contains(body, "cancel: the room is closed already") {
		t.Fatalf("a second cancel: %d\n%s", st, body)
	}
}
