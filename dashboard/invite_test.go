package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestInvitationPages: a person without an agent sees who invites and
// about what, picks a slot with one tap (their confirmation), lands on
// their seat bound to a cookie and a personal link; the invitation then
// says it was answered. A counter with a bad value shows the error beside
// the field and changes nothing; a withdrawn invitation says so.
func TestInvitationPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	slots := []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
		json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`),
	}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: "Intro call"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	st, _, body := pat.get("/i/" + open.InviteCode)
	for _, want := range []string{"Alpha Studio invites you", "Intro call", "Pick this one", "Mon 7 Dec 2026, 08:00–08:30 (UTC)", "Propose something else"} {
		if !strings.Contains(body, want) {
			t.Errorf("invitation page lacks %q", want)
		}
	}
	if st != 200 {
		t.Fatalf("invitation page: %d", st)
	}
	hashes := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindAllStringSubmatch(body, -1)
	if len(hashes) != 2 {
		t.Fatalf("pick buttons: %v", hashes)
	}
	st, loc, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hashes[1][1]}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/ps_") {
		t.Fatalf("pick: %d %q", st, loc)
	}
	seat := strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
	if st, _, body := pat.get(loc); st != 200 || !strings.Contains(body, "Your answer is in.") || !strings.Contains(body, b.base+"/p/"+seat) {
		t.Fatalf("seat: %d %s", st, body)
	}
	if st, loc, _ := pat.get("/i/" + open.InviteCode); st != http.StatusSeeOther || loc != "/p/"+seat {
		t.Fatalf("the invitation again, same browser: %d %q", st, loc)
	}
	if _, _, body := b.client(nil).get("/i/" + open.InviteCode); !strings.Contains(body, "This invitation has been answered already") {
		t.Fatalf("the invitation again, another browser: %s", body)
	}
	r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil || r.Approvals.Them == nil || string(*r.Approvals.Them) != hashes[1][1] || r.State != negotiation.StateAwaiting {
		t.Fatalf("room after the pick: %v %+v", err, r)
	}

	// A counter with a bad value: the error is beside the field.
	other, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "20"), Title: "Fee"})
	if err != nil {
		t.Fatal(err)
	}
	pat2 := b.client(nil)
	_, _, body = pat2.get("/i/" + other.InviteCode)
	if !strings.Contains(body, `name="f.fee.0.amount" value="20.00"`) {
		t.Fatalf("the counter form is not prefilled: %s", body)
	}
	bad := url.Values{"verdict": {"counter"}, "f.meeting_time.0.start": {"2026-12-09T11:00"}, "f.meeting_time.0.end": {"2026-12-09T11:30"},
		"f.meeting_time.0.zone": {"Europe/Paris"}, "f.place.0.v": {"video"}, "f.fee.0.amount": {"12.345"}}
	st, _, body = pat2.post("/i/"+other.InviteCode, bad)
	if st != http.StatusBadRequest || !regexp.MustCompile(`(?s)id="field-fee".*class="field-error" id="err-fee" role="alert">Fee: EUR has at most 2 decimals`).MatchString(body) {
		t.Fatalf("bad counter: %d %s", st, body)
	}
	if !strings.Contains(body, `value="12.345"`) {
		t.Fatal("the bad value is not kept in the form")
	}
	bad.Set("f.fee.0.amount", "12.50")
	bad.Set("f.meeting_time.0.zone", "Mars/Olympus")
	if st, _, body := pat2.post("/i/"+other.InviteCode, bad); st != http.StatusBadRequest || !strings.Contains(body, `Meeting time: time zone: &#34;Mars/Olympus&#34; is not an IANA time zone`) {
		t.Fatalf("bad zone: %d %s", st, body)
	}
	bad.Set("f.meeting_time.0.zone", "Europe/Paris")
	st, loc, _ = pat2.post("/i/"+other.InviteCode, bad)
	if st != http.StatusSeeOther {
		t.Fatalf("good counter: %d", st)
	}
	if _, _, body := pat2.get(loc); !strings.Contains(body, "Wed 9 Dec 2026, 11:00–11:30 (Europe/Paris, UTC+01:00)") && !strings.Contains(body, "Wed 9 Dec 2026, 10:00–10:30 (UTC)") {
		t.Fatalf("the counter on the seat: %s", body)
	}

	// The inviter approves the person's counter: their page lets them agree
	// to it too, and the room is agreed.
	rv, err := b.rooms.Read(b.ctx, b.alpha, other.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	h := rv.TermsOnTable.Options[0].SubjectHash
	acv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, other.RoomToken, "approve", h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, rv.RoomID, acv.ID, h, true); err != nil {
		t.Fatal(err)
	}
	seatPath := strings.TrimSuffix(loc, "?welcome=1")
	if _, _, body := pat2.get(seatPath); !strings.Contains(body, `name="subject_hash" value="`+string(h)+`"`) {
		t.Fatalf("the person's own terms, approved by the inviter, cannot be agreed on the seat page: %s", body)
	}
	if st, _, _ := pat2.post(seatPath, url.Values{"verdict": {"approve"}, "subject_hash": {string(h)}}); st != http.StatusSeeOther {
		t.Fatalf("the person agrees: %d", st)
	}
	if rv, err := b.rooms.Read(b.ctx, b.alpha, other.RoomToken); err != nil || rv.State != negotiation.StateAgreed {
		t.Fatalf("after both approved: %v %+v", err, rv)
	}

	// Withdrawn.
	gone, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, gone.RoomToken, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, gone.View.RoomID, cv.ID, "", true); err != nil {
		t.Fatal(err)
	}
	if st, _, body := b.client(nil).get("/i/" + gone.InviteCode); st != 200 || !strings.Contains(body, "This invitation was withdrawn") {
		t.Fatalf("withdrawn: %d %s", st, body)
	}
	if st, _, _ := b.client(nil).get("/i/nosuchcode"); st != http.StatusNotFound {
		t.Fatalf("unknown code: %d", st)
	}
}
