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

// TestCardSaysTheOtherSideApproved: once beta's human approved the terms,
// alpha's human, asked to approve them, reads on the one-tap page and the
// room page that their approval agrees the room; beta's human, asked
// first, did not. The terms are alpha's own: no new-form note.
func TestCardSaysTheOtherSideApproved(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const agrees = "The other side approved these terms: if you approve, they are agreed."
	ta, _, roomID, hash, token := b.askedBeta("approved first", 4)
	anyone := b.client(nil)
	if st, _, body := anyone.get("/c/" + token); st != 200 || strings.Contains(body, agrees) {
		t.Fatalf("beta's one-tap page, nothing approved yet: %d %s", st, body)
	}
	if st, _, body := anyone.post("/c/"+token, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}}); st != 200 {
		t.Fatalf("beta's human confirms: %d %s", st, body)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "approve", hash)
	if err != nil {
		t.Fatal(err)
	}
	tap, err := b.rooms.IssueOneTap(b.ctx, b.pool, roomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []struct {
		who  *client
		path string
	}{{anyone, "/c/" + tap}, {b.client(&b.alice), "/rooms/" + strconv.FormatInt(roomID, 10)}} {
		st, _, body := page.who.get(page.path)
		if st != 200 || !strings.Contains(body, agrees) {
			t.Errorf("%s does not say beta approved: %d %s", page.path, st, body)
		}
		if strings.Contains(body, "have not agreed under before") {
			t.Errorf("%s asks alice to check a new form on alpha's own terms", page.path)
		}
	}
}

// TestPersonPagesMarkTheInvitersLabels: a person answers with the
// inviter's schema, so every label they read there (the card, the counter
// form, their seat) is the inviter's words and marked so; Taasky's own name
// for the slots shorthand's field is not.
func TestPersonPagesMarkTheInvitersLabels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "20"), Title: "Fee"})
	if err != nil {
		t.Fatal(err)
	}
	const theirs = `<span class="their-words">Where</span> <span class="tag">their field</span>`
	pat := b.client(nil)
	st, _, body := pat.get("/i/" + open.InviteCode)
	if st != 200 || !strings.Contains(body, "<dt>"+theirs+"</dt>") || !strings.Contains(body, "<legend>"+theirs) ||
		!strings.Contains(body, `<span class="their-words">Meeting time</span>`) {
		t.Fatalf("the inviter's labels are not marked theirs on the invitation: %d %s", st, body)
	}
	counter := url.Values{"verdict": {"counter"}, "f.meeting_time.0.start": {"2026-12-09T11:00"}, "f.meeting_time.0.end": {"2026-12-09T11:30"},
		"f.meeting_time.0.zone": {"Europe/Paris"}, "f.place.0.v": {"video"}, "f.fee.0.amount": {"12.50"}}
	st, loc, _ := pat.post("/i/"+open.InviteCode, counter)
	if st != http.StatusSeeOther {
		t.Fatalf("counter: %d", st)
	}
	if _, _, body := pat.get(loc); !strings.Contains(body, "<dt>"+theirs+"</dt>") {
		t.Fatalf("the inviter's labels are not marked theirs on the seat: %s", body)
	}

	// Slots: the shorthand's label is Taasky's, not the inviter's.
	slots := []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
		json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`),
	}
	so, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: "Intro call"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, body := b.client(nil).get("/i/" + so.InviteCode); !strings.Contains(body, "Meeting time") || strings.Contains(body, `<span class="tag">their field</span>`) {
		t.Fatalf("the shorthand's label is marked as the inviter's: %s", body)
	}
}
