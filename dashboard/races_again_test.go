package dashboard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// The same form sent twice (a double click, or a POST the browser sent
// again after losing the first answer): the browser shows the second
// answer, which leads where the first did.

// TestInvitationAnsweredTwiceFromOnePage: a person picks the slot twice on
// the invitation page (at once, then again); each answer takes them to the
// seat the first took, with its cookie, while another browser's page, or a
// stranger's made-up nonce, is still refused.
func TestInvitationAnsweredTwiceFromOnePage(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	slots := []json.RawMessage{json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}
	for round := range 3 {
		open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: fmt.Sprint("Intro ", round)})
		if err != nil {
			t.Fatal(err)
		}
		page := "/i/" + open.InviteCode
		pat, other := b.client(nil), b.client(nil)
		_, _, body := pat.get(page)
		_, _, otherBody := other.get(page)
		nonce, hash := valueShown(body, "seat_nonce"), valueShown(body, "subject_hash")
		if nonce == "" || hash == "" || valueShown(otherBody, "seat_nonce") == nonce {
			t.Fatalf("the page's nonce %q (the other page's %q), hash %q", nonce, valueShown(otherBody, "seat_nonce"), hash)
		}
		if forms := strings.Count(body, `<form method="post" action="/i/`); forms != strings.Count(body, `name="seat_nonce" value="`+nonce+`"`) {
			t.Fatalf("%d forms answer the invitation; not each with the page's nonce", forms)
		}
		pick := func() url.Values {
			return url.Values{"verdict": {"approve"}, "subject_hash": {hash}, "seat_nonce": {nonce}}
		}
		clicks := []*client{pat.clone(), pat.clone(), pat.clone()}
		got := make([]answered, len(clicks))
		together(2, func(i int) {
			st, loc, body := clicks[i].post(page, pick())
			got[i] = answered{st, loc, body}
		})
		st, loc, body := clicks[2].post(page, pick()) // sent again, later
		got[2] = answered{st, loc, body}
		noInternalError(t, "one page's answer sent twice", got, &log)
		seat := strings.TrimSuffix(got[0].loc, "?welcome=1")
		if !strings.HasPrefix(seat, "/p/ps_") {
			t.Fatalf("round %d: the first click: %d %q %.300s", round, got[0].status, got[0].loc, got[0].body)
		}
		for i, a := range got {
			if a.status != http.StatusSeeOther || strings.TrimSuffix(a.loc, "?welcome=1") != seat {
				t.Errorf("round %d: click %d: %d %q, not the seat %s", round, i, a.status, a.loc, seat)
			}
			if c := seatIn(clicks[i], open.View.RoomID); "/p/"+c != seat {
				t.Errorf("round %d: click %d: the seat's cookie is %q", round, i, c)
			}
		}
		if st, loc, _ := clicks[1].get(page); st != http.StatusSeeOther || loc != seat {
			t.Errorf("round %d: the invitation page again: %d %q", round, st, loc)
		}
		// Another page of the invitation, and a nonce made up: refused.
		strangers := map[string]*client{"another browser": other, "a made-up nonce": b.client(nil)}
		strangers["a made-up nonce"].get(page)
		for who, c := range strangers {
			f := url.Values{"verdict": {"approve"}, "subject_hash": {hash}, "seat_nonce": {valueShown(otherBody, "seat_nonce")}}
			if who == "a made-up nonce" {
				f.Set("seat_nonce", app.NewSeatNonce())
			}
			if st, loc, body := c.post(page, f); st != http.StatusConflict || strings.Contains(body, seat) {
				t.Errorf("round %d: %s: %d %q", round, who, st, loc)
			}
		}
		var parties int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM parties WHERE room_id = $1`, open.View.RoomID).Scan(&parties); err != nil || parties != 2 {
			t.Errorf("round %d: %d parties (%v)", round, parties, err)
		}
	}
}

// TestJoinPressedTwice: Join on an invitation to an account, pressed twice
// (at once, then again): one membership, and each answer is the account's
// start page, as the first; someone else pressing the used link is still
// told it was used.
func TestJoinPressedTwice(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	smtp := b.inviteMails(t)
	erin, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: "https://idp.example", Subject: "erin",
		Email: "erin@example.test", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", erin.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	path := firstJoinPath(t, smtp)
	c := b.client(&erin)
	c.get(path)
	got := make([]answered, 3)
	together(2, func(i int) {
		st, loc, body := c.clone().post(path, nil)
		got[i] = answered{st, loc, body}
	})
	st, loc, body := c.clone().post(path, nil) // sent again, later
	got[2] = answered{st, loc, body}
	noInternalError(t, "join pressed twice", got, &log)
	for i, a := range got {
		if a.status != http.StatusSeeOther || a.loc != "/accounts/alpha/start" {
			t.Errorf("press %d: %d %q %.300s", i, a.status, a.loc, a.body)
		}
	}
	ms, err := b.accounts.Memberships(b.ctx, erin.ID)
	if err != nil || len(ms) != 1 || ms[0].AccountSlug != "alpha" {
		t.Errorf("erin's memberships: %+v %v", ms, err)
	}
	// Bob is no member of alpha: the used link says so to him.
	bob := b.client(&b.bob)
	bob.get(path)
	if st, loc, body := bob.post(path, nil); st == http.StatusSeeOther || !strings.Contains(body, "this link was already used to join") {
		t.Errorf("bob presses the used link: %d %q %.300s", st, loc, body)
	}
}

// TestRoomConfirmPressedTwice: the room page's Confirm pressed twice (at
// once, then again) answers each press as the first: the room with the
// answer shown; one answer was applied. Decline pressed after it is still
// refused, saying they answered already: that is another answer.
func TestRoomConfirmPressedTwice(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	for round := range 3 {
		_, roomID, _ := b.askedToApprove(t, fmt.Sprint("confirm ", round), "", meeting(4, 9, "video", "20"))
		bob := b.client(&b.bob)
		page := fmt.Sprintf("/rooms/%d", roomID)
		_, _, body := bob.get(page)
		hash, cid := valueShown(body, "subject_hash"), valueShown(body, "confirmation_id")
		if hash == "" || cid == "" {
			t.Fatalf("no answer's form: %.300s", body)
		}
		answer := func(a string) url.Values {
			return url.Values{"side": {"b"}, "confirmation_id": {cid}, "subject_hash": {hash}, "answer": {a}}
		}
		got := make([]answered, 3)
		together(2, func(i int) {
			st, loc, body := bob.clone().post(page+"/decide", answer("confirm"))
			got[i] = answered{st, loc, body}
		})
		st, loc, body := bob.clone().post(page+"/decide", answer("confirm")) // sent again, later
		got[2] = answered{st, loc, body}
		noInternalError(t, "confirm pressed twice", got, &log)
		want := fmt.Sprintf("%s?side=b&answered=%s", page, url.QueryEscape(cid))
		for i, a := range got {
			if a.status != http.StatusSeeOther || a.loc != want {
				t.Errorf("round %d: press %d: %d %q %.300s", round, i, a.status, a.loc, a.body)
			}
		}
		if st, _, body := bob.clone().post(page+"/decide", answer("decline")); st != http.StatusConflict || !strings.Contains(body, "nswered this already") {
			t.Errorf("round %d: decline after confirm: %d %s", round, st, body)
		}
		var settled, applied int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*), count(*) FILTER (WHERE status = 'applied') FROM confirmations
			WHERE room_id = $1 AND status <> 'pending'`, roomID).Scan(&settled, &applied); err != nil || settled != 1 || applied != 1 {
			t.Errorf("round %d: %d confirmations settled, %d applied (%v)", round, settled, applied, err)
		}
	}
}

// TestSeatCounterSentTwice: a seated person's counter sent twice (at once,
// then again) is one counter, and each answer is the seat, as the first;
// once the inviter moved, the same counter is refused as stale.
func TestSeatCounterSentTwice(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	for round := range 3 {
		open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "20"), Title: fmt.Sprint("Fee ", round)})
		if err != nil {
			t.Fatal(err)
		}
		pat := b.client(nil)
		_, _, body := pat.get("/i/" + open.InviteCode)
		_, loc, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"join"}, "seat_nonce": {valueShown(body, "seat_nonce")}})
		seat := strings.TrimSuffix(loc, "?welcome=1")
		if !strings.HasPrefix(seat, "/p/ps_") {
			t.Fatalf("joining: %q", loc)
		}
		pat.get(seat)
		counter := func() url.Values {
			return url.Values{"verdict": {"counter"}, "f.meeting_time.0.start": {"2026-12-09T11:00"}, "f.meeting_time.0.end": {"2026-12-09T11:30"},
				"f.meeting_time.0.zone": {"Europe/Paris"}, "f.place.0.v": {"video"}, "f.fee.0.amount": {"12.50"}}
		}
		got := make([]answered, 3)
		together(2, func(i int) {
			st, loc, body := pat.clone().post(seat, counter())
			got[i] = answered{st, loc, body}
		})
		st, loc, body := pat.clone().post(seat, counter()) // sent again, later
		got[2] = answered{st, loc, body}
		noInternalError(t, "a counter sent twice", got, &log)
		for i, a := range got {
			if a.status != http.StatusSeeOther || a.loc != seat {
				t.Errorf("round %d: send %d: %d %q %.300s", round, i, a.status, a.loc, a.body)
			}
		}
		var counters int
		if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM room_events WHERE room_id = $1 AND side = 'b' AND kind = 'propose'`,
			open.View.RoomID).Scan(&counters); err != nil || counters != 1 {
			t.Errorf("round %d: %d counters by the person (%v)", round, counters, err)
		}
		// The inviter's agent asks its human to approve the counter: the
		// person's counter sent again now is a stale form, refused.
		v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, "approve", v.TermsOnTable.Options[0].SubjectHash); err != nil {
			t.Fatal(err)
		}
		if st, _, _ := pat.clone().post(seat, counter()); st != http.StatusConflict && st != http.StatusBadRequest {
			t.Errorf("round %d: the counter sent after the inviter's: %d", round, st)
		}
	}
}

// TestSeatApprovalSentTwice: a seated person's approval sent again is
// answered with the seat; one approval.
func TestSeatApprovalSentTwice(t *testing.T) {
	t.Parallel()
	var log logSink
	b := setup(t, loggingTo(&log))
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "20")})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	_, _, body := pat.get("/i/" + open.InviteCode)
	_, loc, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"join"}, "seat_nonce": {valueShown(body, "seat_nonce")}})
	seat := strings.TrimSuffix(loc, "?welcome=1")
	_, _, body = pat.get(seat)
	hash := valueShown(body, "subject_hash")
	if hash == "" {
		t.Fatalf("no terms to approve on the seat's page: %.300s", body)
	}
	got := make([]answered, 2)
	for i := range got {
		st, loc, body := pat.clone().post(seat, url.Values{"verdict": {"approve"}, "subject_hash": {hash}})
		got[i] = answered{st, loc, body}
	}
	noInternalError(t, "an approval sent twice", got, &log)
	for i, a := range got {
		if a.status != http.StatusSeeOther || a.loc != seat {
			t.Errorf("send %d: %d %q %.300s", i, a.status, a.loc, a.body)
		}
	}
	var approvals int
	if err := b.pool.QueryRow(b.ctx, `SELECT count(*) FROM room_events WHERE room_id = $1 AND side = 'b' AND kind = 'request'`,
		open.View.RoomID).Scan(&approvals); err != nil || approvals != 1 {
		t.Errorf("%d approvals by the person (%v)", approvals, err)
	}
}
