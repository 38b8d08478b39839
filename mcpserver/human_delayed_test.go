package mcpserver

import (
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// TestForYourHumanSaysTheEmailIsDelayed: while the email asking the human
// to confirm is being retried, for_your_human does not say they were sent
// a link; it says the email has not gone out yet and that they can answer
// on the dashboard; refused for good, it says so instead.
func TestForYourHumanSaysTheEmailIsDelayed(t *testing.T) {
	t.Parallel()
	v := &app.View{State: negotiation.StateAwaiting, Lang: "de",
		PendingConfirmation: &app.ConfirmationView{ID: "cf_1", Verdict: negotiation.VerdictCancel}}
	de := locale.NewPrinter("de")
	if h := forYourHuman(v); !strings.Contains(h, de.T("human.confirm_where")) {
		t.Fatalf("a request mailed:\n%s", h)
	}
	v.Undelivered = []app.UndeliveredView{{What: app.UndeliveredRequest, ConfirmationID: "cf_1", Retrying: true}}
	if h := forYourHuman(v); !strings.Contains(h, de.T("outage19_human.confirm_delayed")) || strings.Contains(h, de.T("human.confirm_where")) {
		t.Fatalf("a request whose email is retried:\n%s", h)
	}
	v.Undelivered[0].Retrying = false
	if h := forYourHuman(v); !strings.Contains(h, de.T("bounce18_human.confirm_undelivered")) {
		t.Fatalf("a request whose email was refused for good:\n%s", h)
	}
}

// TestForYourHumanSaysTheInvitationIsDelayed: while the invitation email
// is being retried, for_your_human says it has not gone out yet (naming
// the address, or not once it is erased), not that it was refused; refused
// for good, it says so instead.
func TestForYourHumanSaysTheInvitationIsDelayed(t *testing.T) {
	t.Parallel()
	const to = "pat@example.test"
	v := &app.View{State: negotiation.StateDraft, Lang: "fr",
		Undelivered: []app.UndeliveredView{{What: app.UndeliveredInvitation, To: to, Retrying: true}}}
	fr := locale.NewPrinter("fr")
	if h := forYourHuman(v); !strings.Contains(h, fr.T("delay19_human.invite_delayed", to)) || strings.Contains(h, fr.T("bounce18_human.invite_undelivered", to)) {
		t.Fatalf("an invitation whose email is retried:\n%s", h)
	}
	v.Undelivered[0].To = ""
	if h := forYourHuman(v); !strings.Contains(h, fr.T("delay19_human.invite_delayed_erased")) {
		t.Fatalf("an invitation whose email is retried, its address erased:\n%s", h)
	}
	v.Undelivered[0].To, v.Undelivered[0].Retrying = to, false
	if h := forYourHuman(v); !strings.Contains(h, fr.T("bounce18_human.invite_undelivered", to)) || strings.Contains(h, fr.T("delay19_human.invite_delayed", to)) {
		t.Fatalf("an invitation whose email was refused for good:\n%s", h)
	}
}
