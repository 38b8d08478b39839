package dashboard

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestRoomPageSaysAnEmailIsDelayed: while the invitation email, or the
// email asking the human to confirm, is being retried, the opener's room
// page says it has not gone out yet, not that the mail server refused it.
func TestRoomPageSaysAnEmailIsDelayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	en := locale.NewPrinter("en")
	const to = "pat@example.test"
	away := jobs.Outcome{Status: jobs.StatusRetrying, Recipient: to, Detail: "451 4.3.0 try again"}
	says := func(roomID int64, what, want, not string) {
		t.Helper()
		_, _, page := b.client(&b.alice).get(fmt.Sprintf("/rooms/%d?side=a", roomID))
		if !strings.Contains(page, `data-undelivered="`+what+`" data-retrying`) || !strings.Contains(page, html.EscapeString(want)) ||
			strings.Contains(page, html.EscapeString(not)) {
			t.Fatalf("alice's room page, %s retried:\n%s", what, page)
		}
	}

	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Coffee?", InviteEmail: to})
	if err != nil {
		t.Fatal(err)
	}
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: open.View.RoomID, Side: negotiation.SideA, UserID: b.alice.ID},
		JobID: 1, Attempt: 1, Channel: jobs.ChannelEmail}
	if err := b.notify.Record(b.ctx, d, away); err != nil {
		t.Fatal(err)
	}
	says(open.View.RoomID, "invitation", en.T("delay19_note.invite_delayed", to), en.T("bounce18_note.invite_undelivered", to))

	ta, _, roomID := b.joined("Lunch?", nil, "")
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	d = jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicRequest, RoomID: roomID, Side: negotiation.SideA, UserID: b.alice.ID,
		ConfirmationID: cv.ID}, JobID: 2, Attempt: 1, Channel: jobs.ChannelEmail}
	if err := b.notify.Record(b.ctx, d, away); err != nil {
		t.Fatal(err)
	}
	says(roomID, "confirmation_request", en.T("delay19_note.confirm_delayed"), en.T("bounce18_note.confirm_undelivered"))
}
