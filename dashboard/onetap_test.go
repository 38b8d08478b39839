package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestOneTapPages: a GET shows the card and changes nothing (twice); the
// POST answers, bound to the hash shown; a second use says what happened.
func TestOneTapPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserTimeZone(b.ctx, b.bob.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	_, tb, _, hash, token := b.askedBeta("fee talk", 4)
	anyone := b.client(nil)
	for range 2 {
		st, _, body := anyone.get("/c/" + token)
		if st != 200 || !strings.Contains(body, "Your agent asks you to approve") || !strings.Contains(body, `name="subject_hash" value="`+string(hash)+`"`) {
			t.Fatalf("one-tap GET: %d %s", st, body)
		}
	}
	if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.PendingConfirmation == nil {
		t.Fatal("a GET answered the confirmation")
	}
	st, _, body := anyone.post("/c/"+token, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}})
	if st != 200 || !strings.Contains(body, "Done: your answer was applied.") {
		t.Fatalf("one-tap POST: %d %s", st, body)
	}
	st, _, body = anyone.post("/c/"+token, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}})
	if st != http.StatusConflict || !strings.Contains(body, "this link was used already") || !strings.Contains(body, "Done: your answer was applied.") {
		t.Fatalf("second use: %d %s", st, body)
	}
	if used := regexp.MustCompile(`this link was used already, at [^<]*`).FindString(body); !strings.HasSuffix(used, "(Asia/Tokyo)") {
		t.Errorf("the moment of the first use, in bob's zone: %q", used)
	}
	if st, _, body := anyone.get("/c/" + token); st != 200 || !strings.Contains(body, "This link was used on") {
		t.Fatalf("GET after use: %d %s", st, body)
	}
	if st, _, _ := anyone.get("/c/ot_nope"); st != http.StatusNotFound {
		t.Fatalf("unknown link: %d", st)
	}
	if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.Approvals.You == nil || r.State != negotiation.StateAwaiting {
		t.Fatalf("room after the one-tap approval: %+v", r)
	}
}

// TestOneTapPageInTheReadersLanguage: a one-tap link is for one person;
// its page speaks their language (their setting), whoever's browser opens
// it, and so do its refusals.
func TestOneTapPageInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, "de"); err != nil {
		t.Fatal(err)
	}
	_, _, token := b.askedToApprove(t, "fee talk", "", meeting(4, 9, "video", "20"))
	english := b.client(nil)
	english.lang = "en-US"
	st, _, body := english.get("/c/" + token)
	if st != 200 || !strings.Contains(body, "Ihr Agent bittet Sie") || !strings.Contains(body, `lang="de"`) {
		t.Errorf("bob (de) opens his link in an English browser: %d %s", st, body)
	}
	if st, _, body := english.post("/c/"+token, url.Values{"subject_hash": {valueShown(body, "subject_hash")}, "answer": {"maybe"}}); st != http.StatusBadRequest || !strings.Contains(body, "Antwort: muss bestätigen oder ablehnen sein") {
		t.Errorf("a bad answer on bob's page: %d %s", st, body)
	}
}

// moJoinsForBeta makes mo a member of beta whose agent joins a room
// alpha's agent opened: mo, mo's agent, the room as opened and as joined.
func (b *bundle) moJoinsForBeta(t *testing.T) (app.User, app.Agent, *app.OpenResult, *app.JoinResult) {
	t.Helper()
	if err := b.accounts.AddMemberAsOperator(b.ctx, "beta", "mo@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	agent, _, err := b.accounts.CreateAgent(b.ctx, "beta", "Mo's agent", "mo@example.test")
	if err != nil {
		t.Fatal(err)
	}
	mo, _ := b.accounts.UserByEmail(b.ctx, "mo@example.test")
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, agent, app.JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	return mo, agent, open, j
}

// TestOneTapLinkOfAPersonWhoLeft: a member's link stops when they leave
// the account (its owners answer now); the page says so, not "used".
func TestOneTapLinkOfAPersonWhoLeft(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mo, agent, open, j := b.moJoinsForBeta(t)
	v, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("offer", meeting(4, 9, "video", "20")))
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, agent, j.RoomToken, "approve", hash)
	if err != nil {
		t.Fatal(err)
	}
	link, err := b.rooms.IssueOneTap(b.ctx, b.pool, j.View.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	tap := b.client(nil)
	tap.get("/c/" + link) // the page is open when mo is removed
	if err := b.accounts.RemoveMember(b.ctx, b.bob.ID, "beta", mo.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, body := tap.get("/c/" + link); !strings.Contains(body, "its owners answer this confirmation now") || strings.Contains(body, "This link was used on") {
		t.Errorf("the link of a member who left, opened: %s", body)
	}
	if st, _, body := tap.post("/c/"+link, url.Values{"subject_hash": {string(hash)}, "answer": {"confirm"}}); st != http.StatusConflict ||
		!strings.Contains(body, "this link no longer works: its person is no longer in the account") || strings.Contains(body, "used already") {
		t.Errorf("the link of a member who left, answered: %d %s", st, body)
	}
}

// TestOneTapLinkStoppedByARole: a link an owner was sent for a seat handed
// to the owners stops when their role no longer answers for it; its page
// and its answer say so, not "used".
func TestOneTapLinkStoppedByARole(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	cv, v, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	link, err := b.rooms.IssueOneTap(b.ctx, b.pool, v.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	tap := b.client(nil)
	tap.get("/c/" + link) // the page is open when the link stops
	if _, err := b.pool.Exec(b.ctx, `UPDATE onetap_tokens SET used_at = now(), stopped = 'role' WHERE room_id = $1`, v.RoomID); err != nil {
		t.Fatal(err)
	}
	if _, _, body := tap.get("/c/" + link); !strings.Contains(body, "no longer has a role that answers for this seat") || strings.Contains(body, "This link was used on") {
		t.Errorf("the stopped link, opened: %s", body)
	}
	if st, _, body := tap.post("/c/"+link, url.Values{"subject_hash": {""}, "answer": {"confirm"}}); st != http.StatusConflict ||
		!strings.Contains(body, "this link no longer works: its person&#39;s role no longer answers for this seat") {
		t.Errorf("the stopped link, answered: %d %s", st, body)
	}
}
