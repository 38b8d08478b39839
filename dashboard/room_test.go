package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestRoomsAndRoomPage: the list shows the room waiting for its human
// first; the room page renders the card in the viewer's words, flags what
// is outside their limits, shows their limits to them only, escapes what
// the other side wrote, and is not found for anyone outside its accounts.
// The answer is bound to the hash shown, needs the CSRF token, and shows
// what it did.
func TestRoomsAndRoomPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ta, tb, roomID := b.joined(`<script>alert(1)</script> lunch`, nil, `{"fee":{"max":{"amount":"50.00","currency":"EUR"}}}`)
	_, _, _ = b.joined("quiet room", nil, "")
	v, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(3, 10, "office", "80")))
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "approve", hash)
	if err != nil {
		t.Fatal(err)
	}

	bob := b.client(&b.bob)
	st, _, list := bob.get("/")
	first := strings.Index(list, "lunch")
	if st != 200 || first < 0 || first > strings.Index(list, "quiet room") || !strings.Contains(list, "waiting for you") {
		t.Fatalf("bob's list: %d %s", st, list)
	}
	if strings.Contains(list, "<script>alert") {
		t.Fatal("the title is not escaped in the list")
	}
	for _, bad := range []string{"/?state=everything", "/?after=1.2"} {
		if st, _, body := bob.get(bad); st != http.StatusBadRequest || !strings.Contains(body, ":") {
			t.Fatalf("%s: %d %s", bad, st, body)
		}
	}

	page := fmt.Sprintf("/rooms/%d", roomID)
	st, _, body := bob.get(page)
	for _, want := range []string{"Your agent asks you to approve these terms", "Meeting time", "Thu 3 Dec 2026",
		"outside your limits: above your maximum", "Your limits", "at most EUR\u00a050.00", "&lt;script&gt;", `value="` + string(hash) + `"`,
		"Beta &amp; Co (side b) with Alpha Studio"} {
		if !strings.Contains(body, want) {
			t.Errorf("bob's room page lacks %q", want)
		}
	}
	if st != 200 || strings.Contains(body, "<script>alert") {
		t.Fatalf("bob's room page: %d", st)
	}
	alice := b.client(&b.alice)
	if _, _, body := alice.get(page); strings.Contains(body, "50.00") || strings.Contains(body, "Your limits") || strings.Contains(body, "Confirm: approve") {
		t.Fatal("alice sees bob's limits or his confirmation")
	}
	carol := b.client(&b.carol)
	if st, _, _ := carol.get(page); st != http.StatusNotFound {
		t.Fatalf("carol sees the room: %d", st)
	}
	if st, _, _ := carol.get(page + "/events"); st != http.StatusNotFound {
		t.Fatalf("carol streams the room: %d", st)
	}

	form := url.Values{"side": {"b"}, "confirmation_id": {cv.ID}, "subject_hash": {string(hash)}, "answer": {"confirm"}}
	if st, _, _ := bob.do(http.MethodPost, page+"/decide", form); st != http.StatusForbidden {
		t.Fatalf("an answer without the CSRF token: %d", st)
	}
	wrong := url.Values{"side": {"b"}, "confirmation_id": {cv.ID}, "subject_hash": {"sha256:00"}, "answer": {"confirm"}}
	if st, _, body := bob.post(page+"/decide", wrong); st != http.StatusConflict || !strings.Contains(body, "subject_hash: the answer is for other terms") {
		t.Fatalf("an answer for other terms: %d", st)
	}
	if st, _, body := bob.post(page+"/decide", url.Values{"confirmation_id": {cv.ID}, "answer": {"maybe"}}); st != http.StatusBadRequest || !strings.Contains(body, "answer: must be confirm or decline") {
		t.Fatalf("a bad answer: %d", st)
	}
	carol.get("/")
	if st, _, _ := carol.post(page+"/decide", form); st != http.StatusNotFound {
		t.Fatalf("carol answers: %d", st)
	}
	st, loc, _ := bob.post(page+"/decide", form)
	if st != http.StatusSeeOther || !strings.Contains(loc, "answered="+cv.ID) {
		t.Fatalf("bob confirms: %d %q", st, loc)
	}
	if _, _, body := bob.get(loc); !strings.Contains(body, "Done: you approved.") || strings.Contains(body, "Confirm: approve") {
		t.Fatalf("after the answer: %s", body)
	}
	r, err := b.rooms.Read(b.ctx, b.beta, tb)
	if err != nil || r.Approvals.You == nil || *r.Approvals.You != hash || r.State != negotiation.StateAwaiting {
		t.Fatalf("room after bob's approval: %v %+v", err, r)
	}
}

func mv(verdict string, subject []byte) (m moveInput) {
	return moveInput{Verdict: negotiation.Verdict(verdict), Subject: subject}
}

// TestTimelineNamesTheFieldsAskedAbout: a need_more_detail is shown by the
// reader's labels, a field only the other side has by its label marked as
// theirs (DESIGN §2), never by a field's name.
func TestTimelineNamesTheFieldsAskedAbout(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	withNotes := json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},` +
		`"place":{"type":"enum","label":"Venue","values":["office","video"]},"notes":{"type":"string","label":"Notes for the host","optional":true}}`)
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: withNotes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("offer", meeting(4, 9, "video", ""))); err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.Propose(b.ctx, b.beta, j.RoomToken, moveInput{Verdict: "need_more_detail", Fields: []string{"notes", "place"}}); err != nil {
		t.Fatal(err)
	}
	page := fmt.Sprintf("/rooms/%d", j.View.RoomID)
	about := regexp.MustCompile(`(?s)about:.*?</p>`)
	_, _, body := b.client(&b.alice).get(page)
	if got := about.FindString(body); !strings.Contains(got, `<span class="their-words">Notes for the host</span> <span class="tag">their field</span>, Where`) {
		t.Errorf("alice's timeline: %q", got)
	}
	_, _, body = b.client(&b.bob).get(page)
	if got := about.FindString(body); !strings.Contains(got, "Notes for the host, Venue") || strings.Contains(got, "notes") {
		t.Errorf("bob's timeline: %q", got)
	}
}
