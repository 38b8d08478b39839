package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestInvitationCounterWholeNumber: a person's counter with a whole number
// as a browser's number box sends it ("0005", as typed) is tabled as that
// number; before, the form came back 400 without a word of what was
// wrong, and nothing the person could change made it go.
func TestInvitationCounterWholeNumber(t *testing.T) {
	t.Parallel()
	b := setup(t)
	schema := json.RawMessage(`{"seats":{"type":"int","label":"Seats"}}`)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"seats":2}`), Title: "Dinner"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	pat.get("/i/" + open.InviteCode)
	st, _, body := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"counter"}, "f.seats.0.v": {"0005"}})
	if st != http.StatusSeeOther {
		t.Fatalf("counter with 0005: %d %s", st, body)
	}
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(v.TermsOnTable.Options[0].Terms); !strings.Contains(got, `"seats":5`) {
		t.Fatalf("tabled: %s", got)
	}
}
