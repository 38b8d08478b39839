package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestForYourHumanHasNoEnglishLeft: for_your_human, in each state of a
// room that changes its words, says nothing in German, French, Spanish
// or Japanese that its English says too, but for the data (the title, a
// party's labels and values, addresses, zone names); and writes its
// moments and amounts the reader's way.
func TestForYourHumanHasNoEnglishLeft(t *testing.T) {
	t.Parallel()
	data := []string{"Board review", "Meeting time", "Fee", "Where", "office", "Their room", "B 4", "Notes", "Day", "Remote",
		"pat@example.test", "EUR", "UTC", "Europe/Paris", "Taasky"}
	rendered := 0
	for name, v := range humanViews() {
		v.Lang = "en"
		english := notifytest.Lines(forYourHuman(v))
		for _, lang := range []string{"de", "fr", "es", "ja"} {
			v.Lang = lang
			got := notifytest.Lines(forYourHuman(v))
			rendered++
			for _, l := range notifytest.Leftovers(english, got, data, nil) {
				t.Errorf("%s in %s says in English: %q", name, lang, l)
			}
			for _, p := range got {
				if notifytest.EnglishDates.MatchString(p) || strings.Contains(p, "1,500.00") && lang != "ja" {
					t.Errorf("%s in %s writes a moment or an amount the English way: %q", name, lang, p)
				}
			}
		}
	}
	t.Logf("%d views × languages rendered", rendered)
}

// humanViews are a room's views in the states whose words differ.
func humanViews() map[string]*app.View {
	paris, _ := time.LoadLocation("Europe/Paris")
	you, them := "you", "them"
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	card := func() *negotiation.Card {
		return &negotiation.Card{Viewer: "b", TabledBy: "a", Options: []negotiation.CardOption{{
			SubjectHash: "sha256:aa", TheyApproved: true,
			Fields: []negotiation.CardField{
				{Name: "meeting_time", Label: "Meeting time", Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: at("2026-10-14T10:00:00Z"), End: at("2026-10-14T10:30:00Z")}}},
				{Name: "fee", Label: "Fee", Type: negotiation.TypeMoney, Values: []negotiation.Value{{Amount: decimal.RequireFromString("1500.00"), Currency: "EUR"}},
					Outside: []negotiation.Bound{negotiation.BoundMax}},
				{Name: "day", Label: "Day", Type: negotiation.TypeDate, Values: []negotiation.Value{{Start: at("2026-11-02T00:00:00Z")}}},
				{Name: "remote", Label: "Remote", Type: negotiation.TypeBool, Values: []negotiation.Value{{Bool: true}}},
				{Name: "place", Label: "Where", Type: negotiation.TypeEnum, Values: []negotiation.Value{{Text: "office"}}, Text: "office"},
				{Name: "room", Label: "Their room", Theirs: true, Type: negotiation.TypeString, Values: []negotiation.Value{{Text: "B 4"}}, Text: "B 4"},
				{Name: "notes", Label: "Notes", Missing: true, Type: negotiation.TypeString},
			},
		}}, NewSchema: true}
	}
	base := func(state negotiation.State, change func(v *app.View)) *app.View {
		v := &app.View{Side: "b", State: state, Title: "Board review", Deadline: "2026-10-26T10:00:00Z", TimeZone: paris, Card: card()}
		if change != nil {
			change(v)
		}
		return v
	}
	views := map[string]*app.View{
		"draft": base(negotiation.StateDraft, func(v *app.View) {
			v.Card, v.InvitationExpires = nil, at("2026-10-15T10:00:00Z")
			v.Undelivered = []app.UndeliveredView{{What: app.UndeliveredInvitation, To: "pat@example.test"}}
		}),
		"draft delayed": base(negotiation.StateDraft, func(v *app.View) {
			v.Card = nil
			v.Undelivered = []app.UndeliveredView{{What: app.UndeliveredInvitation, Retrying: true}}
		}),
		"your turn":  base(negotiation.StateAwaiting, func(v *app.View) { v.Turn = &you }),
		"their turn": base(negotiation.StateAwaiting, func(v *app.View) { v.Turn = &them; v.Card.TabledBy = "b" }),
		"two options": base(negotiation.StateAwaiting, func(v *app.View) {
			v.Turn = &you
			v.Card.Options = append(v.Card.Options, v.Card.Options[0])
		}),
		"detail asked, no deal": base(negotiation.StateAwaiting, func(v *app.View) {
			v.Turn = &you
			v.DetailAsked = []negotiation.CardNote{{Name: "fee", Label: "Fee"}}
			v.NoDealNotes = []negotiation.CardNote{{Name: "fee", Label: "Fee", Optional: true}}
		}),
		"agreed": base(negotiation.StateAgreed, nil),
	}
	for _, r := range []negotiation.ClosedReason{negotiation.ClosedRejected, negotiation.ClosedCancelled, negotiation.ClosedWithdrawn,
		negotiation.ClosedExpired, negotiation.ClosedLapsed, negotiation.ClosedAccountDeleted} {
		views["closed "+string(r)] = base(negotiation.StateClosed, func(v *app.View) { v.ClosedReason = r })
	}
	for _, verdict := range []negotiation.Verdict{negotiation.VerdictApprove, negotiation.VerdictReject, negotiation.VerdictCancel, negotiation.VerdictPreapprove} {
		for _, how := range []string{"notified", "not notified", "delayed", "undelivered"} {
			views["asked "+string(verdict)+" "+how] = base(negotiation.StateAwaiting, func(v *app.View) {
				v.Turn = &you
				v.PendingConfirmation = &app.ConfirmationView{ID: "cf_1", Verdict: verdict, SubjectHash: "sha256:aa", NotNotified: how == "not notified"}
				switch how {
				case "delayed":
					v.Undelivered = []app.UndeliveredView{{What: app.UndeliveredRequest, Retrying: true}}
				case "undelivered":
					v.Undelivered = []app.UndeliveredView{{What: app.UndeliveredRequest}}
				}
			})
		}
	}
	return views
}
