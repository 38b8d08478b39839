package trust

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestHumanGate attacks the rule that approve, reject and cancel apply only
// when the party's human says so: an agent key cannot confirm (no tool, no
// page), another member of the account cannot, a one-tap token works once
// and only for the hash it was issued with, a GET changes nothing, and a
// confirmation for terms no longer on the table comes out void.
func TestHumanGate(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 2, dashboard: true})
	a, b := s.tenants[0], s.tenants[1]
	checks, failed := 0, 0
	pass := func(ok bool, format string, args ...any) {
		t.Helper()
		checks++
		if !ok {
			failed++
			t.Errorf(format, args...)
		}
	}
	ta, tb, room := s.pair(a, b, raceSchema, nil, nil, feeTerms(100))
	h := tableHash(b.must("negotiation_read", map[string]any{"room_token": tb}).out)
	approvals := func() string {
		v, err := s.rooms.Read(s.ctx, b.agent, tb)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%s/%v/%v", v.State, v.Approvals.You, v.Approvals.Them)
	}

	// 1. The agent asks; nothing applies until the human answers, however
	// the agent insists.
	before := approvals()
	cid := b.must("negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": h}).str("pending_confirmation", "id")
	for range 3 {
		b.must("negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": h})
	}
	pass(approvals() == before, "the agent's approve applied without its human: %s", approvals())
	for _, v := range []string{"approve", "reject", "cancel", "preapprove"} {
		r := b.call("negotiation_propose", map[string]any{"room_token": tb, "verdict": v, "subject_hash": h})
		pass(r.err != "", "negotiation_propose %s accepted", v)
	}
	for _, tool := range []string{"negotiation_confirm", "negotiation_decide", "negotiation_approve", "confirm"} {
		ans := s.rawPost("/mcp/"+b.slug, b.key, toolCall(tool, []byte(`{"room_token":"`+tb+`","confirmation_id":"`+cid+`","answer":"confirm"}`)), nil)
		pass(!ans.ok && strings.Contains(ans.msg, "unknown tool"), "tool %s: %d %s", tool, ans.status, ans.msg)
	}
	// The agent key on the human's pages: not a session.
	for _, path := range []string{fmt.Sprintf("/rooms/%d/decide", room), "/settings/agents"} {
		req, _ := http.NewRequestWithContext(s.ctx, "POST", s.base+path, strings.NewReader(url.Values{"answer": {"confirm"},
			"confirmation_id": {cid}, "subject_hash": {h}, "account": {b.slug}, "name": {"x"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+b.key)
		ans := s.send(req)
		pass(ans.status == http.StatusForbidden || ans.status == http.StatusSeeOther || ans.status == http.StatusUnauthorized,
			"POST %s with the agent key: HTTP %d", path, ans.status)
	}
	pass(approvals() == before, "something applied b's approve: %s", approvals())
	// The agent never receives a one-tap link.
	pass(!strings.Contains(b.received(), "ot_") && !strings.Contains(b.received(), "/c/"), "the agent received a one-tap link")

	// 2. Another member of b's account is not b's human.
	var mate int64
	if err := s.pool.QueryRow(s.ctx, `WITH u AS (INSERT INTO users (email) VALUES ('mate@example.test') RETURNING id)
		INSERT INTO memberships (account_id, user_id, role) SELECT $1, id, 'owner' FROM u RETURNING user_id`, b.agent.AccountID).Scan(&mate); err != nil {
		t.Fatal(err)
	}
	_, err := s.rooms.DecideAsOwner(s.ctx, mate, room, cid, negotiation.SubjectHash(h), true)
	pass(app.ErrorCodeOf(err) == app.ErrNotFound, "another member of b's account answered b's confirmation: %v", err)
	_, err = a.decide(room, cid, negotiation.SubjectHash(h), true)
	pass(app.ErrorCodeOf(err) == app.ErrNotFound, "a's human answered b's confirmation: %v", err)

	// 3. A GET changes nothing, however often (mail scanners prefetch).
	tok := s.oneTap(room, cid)
	invite := a.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(7)}).str("invite_code")
	state := s.state()
	anon := s.signedOut()
	for range 5 {
		for _, path := range []string{"/c/" + tok, fmt.Sprintf("/rooms/%d", room), "/", "/c/" + tok + "?answer=confirm&subject_hash=" + h,
			"/i/" + invite, "/i/" + invite + "?verdict=approve"} {
			anon.do("GET", path, nil)
			req, _ := http.NewRequestWithContext(s.ctx, "HEAD", s.base+path, nil)
			s.send(req)
		}
	}
	pass(s.state() == state, "a GET or HEAD changed what is stored")

	// 4. A one-tap token is bound to its hash and works once.
	other := negotiation.SubjectHash("sha256:" + strings.Repeat("ab", 32))
	_, err = s.rooms.DecideOneTap(s.ctx, tok, other, true)
	pass(app.ErrorCodeOf(err) == app.ErrConflict && s.state() == state, "a one-tap answer for other terms: %v", err)
	d, err := s.rooms.DecideOneTap(s.ctx, tok, negotiation.SubjectHash(h), true)
	pass(err == nil && d.Result == negotiation.ResultApplied, "the one-tap answer: %v %v", d, err)
	_, err = s.rooms.DecideOneTap(s.ctx, tok, negotiation.SubjectHash(h), false)
	pass(err != nil && strings.Contains(app.ErrorMessageOf(err), "used already"), "a one-tap link used twice: %v", err)
	// Through the page: the POST needs the page's CSRF token, and the link
	// is spent.
	st, _, body := anon.do("POST", "/c/"+tok, url.Values{"answer": {"decline"}, "subject_hash": {h}})
	pass(st >= 400 && st < 500, "a spent one-tap link through the page: HTTP %d %s", st, clipArgs(pageText(body)))

	// 5. A confirmation for terms no longer on the table is void: a
	// counters, b asks to approve, b's agent counters before its human
	// answers; the answer and its one-tap link apply to nothing.
	ra := a.must("negotiation_propose", map[string]any{"room_token": ta, "verdict": "counter", "subject": feeTerms(101)})
	h2 := tableHash(ra.out)
	cid2 := b.must("negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": h2}).str("pending_confirmation", "id")
	tok2 := s.oneTap(room, cid2)
	b.must("negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(102)})
	state = s.state()
	_, err = b.decide(room, cid2, negotiation.SubjectHash(h2), true)
	pass(err != nil && s.state() == state, "a confirmation for terms no longer on the table applied: %v", err)
	_, err = s.rooms.DecideOneTap(s.ctx, tok2, negotiation.SubjectHash(h2), true)
	pass(err != nil && s.state() == state, "its one-tap link applied: %v", err)
	var status, why string
	_ = s.pool.QueryRow(s.ctx, `SELECT status, coalesce(why, '') FROM confirmations WHERE room_id = $1 AND id = $2`, room, cid2).Scan(&status, &why)
	pass(status == "void" && why != "", "the confirmation is %s (%s), want void with the reason", status, why)

	// 6. Void when the turn moved on: a asks to approve, then passes the
	// turn with need_more_detail before its human answers.
	rh := a.must("negotiation_read", map[string]any{"room_token": ta})
	h3 := tableHash(rh.out)
	cid3 := a.must("negotiation_respond", map[string]any{"room_token": ta, "verdict": "approve", "subject_hash": h3}).str("pending_confirmation", "id")
	a.must("negotiation_propose", map[string]any{"room_token": ta, "verdict": "need_more_detail", "fields": []string{"fee"}})
	d, err = a.decide(room, cid3, negotiation.SubjectHash(h3), true)
	pass(err == nil && d.Result == negotiation.ResultVoid && d.Why == "not your turn", "approve after the turn passed: %+v %v", d, err)
	v, _ := s.rooms.Read(s.ctx, a.agent, ta)
	pass(v.Approvals.You == nil, "a's approval applied after the turn passed")

	// 7. Reject and cancel wait for the human too.
	b.must("negotiation_respond", map[string]any{"room_token": tb, "verdict": "reject"})
	a.must("negotiation_cancel", map[string]any{"room_token": ta})
	v, _ = s.rooms.Read(s.ctx, a.agent, ta)
	pass(v.State == negotiation.StateAwaiting, "reject or cancel applied without a human: %s", v.State)
	t.Logf("human gate: %d checks, %d failed", checks, failed)
}
