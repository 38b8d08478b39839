package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
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

// TestInvitationAmountInTheReadersMark: a German person answering an
// invitation in dinars (three decimals) sees the amount with a decimal
// comma in the form as on the card; "1.500", which they mean as fifteen
// hundred, is refused beside the field and tables nothing (it was tabled
// as one and a half); "1500" tables fifteen hundred.
func TestInvitationAmountInTheReadersMark(t *testing.T) {
	t.Parallel()
	b := setup(t)
	schema := json.RawMessage(`{"fee":{"type":"money","label":"Honorar","currency":"BHD"}}`)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"fee":{"amount":"1.5","currency":"BHD"}}`), Title: "Beratung"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	pat.lang = "de"
	_, _, body := pat.get("/i/" + open.InviteCode)
	if !strings.Contains(body, `name="f.fee.0.amount" value="1,500"`) || !strings.Contains(body, "1,500\u00a0BHD") {
		t.Fatalf("the German page does not write 1,500: %s", body)
	}
	st, _, body := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"counter"}, "f.fee.0.amount": {"1.500"}})
	if st != http.StatusBadRequest || !strings.Contains(body, "Honorar: Betrag mit Dezimalkomma und ohne Tausendertrennzeichen schreiben, wie 1500,50") {
		t.Fatalf("1.500 typed by a German: %d %s", st, body)
	}
	if v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken); err != nil || v.Round != 1 {
		t.Fatalf("a refused counter moved the room: %v %+v", err, v)
	}
	if st, _, body := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"counter"}, "f.fee.0.amount": {"1500"}}); st != http.StatusSeeOther {
		t.Fatalf("1500 typed by a German: %d %s", st, body)
	}
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(v.TermsOnTable.Options[0].Terms); !strings.Contains(got, `"amount":"1500.000"`) {
		t.Fatalf("tabled: %s", got)
	}
}

// TestRoomPageSaysWhenTheInvitationExpires: the inviter's room page of a
// room nobody joined says when the invitation expires (72 hours after the
// open, before the 14-day deadline it counts down to): the room closes
// then, as expired.
func TestRoomPageSaysWhenTheInvitationExpires(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: json.RawMessage(`{"seats":{"type":"int","label":"Seats"}}`), Title: "Dinner"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	alice := b.client(&b.alice)
	alice.lang = "fr"
	_, _, body := alice.get("/rooms/" + strconv.FormatInt(v.RoomID, 10))
	if !strings.Contains(body, "data-invitation-expires>L&#39;invitation expire le ") {
		t.Fatalf("the room page of a draft does not say when the invitation expires:\n%s", body)
	}
}

// TestRoomListCountsDownToTheInvitation: the rooms list counts a room
// nobody joined down to the end of its invitation (72 hours), when the
// room closes as expired, not to its 14-day deadline.
func TestRoomListCountsDownToTheInvitation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: json.RawMessage(`{"seats":{"type":"int","label":"Seats"}}`), Title: "Dinner"}); err != nil {
		t.Fatal(err)
	}
	_, _, body := b.client(&b.alice).get("/")
	i := strings.Index(body, "Dinner")
	if i < 0 {
		t.Fatalf("the list lacks the room: %s", body)
	}
	item := body[i:]
	item = item[:strings.Index(item, "</li>")]
	if !strings.Contains(item, "invitation expires <time") || !strings.Contains(item, ">2 days left<") || strings.Contains(item, "deadline") {
		t.Fatalf("the draft's line: %s", item)
	}
}
