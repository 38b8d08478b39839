package trust

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestTenantIsolation is the matrix of every tool, page and form against
// another tenant's room tokens, invitation codes, keys, room ids and
// confirmation ids: the attacker (tenant c, an account of its own with its
// own rooms) reads nothing of the others' rooms and changes nothing.
func TestTenantIsolation(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 3, dashboard: true})
	a, b, c := s.tenants[0], s.tenants[1], s.tenants[2]
	secretTitle := "Secret title 7f3a"
	secretFee := 73519
	// R1: a and b, a's offer on the table, b asked to approve (pending).
	open := a.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(secretFee), "title": secretTitle})
	ta1 := open.str("room_token")
	usedCode := open.str("invite_code")
	tb1 := b.must("negotiation_join", map[string]any{"invite_code": usedCode, "subject_schema": raceSchema}).str("room_token")
	room1 := b.roomID(tb1)
	h1 := tableHash(b.must("negotiation_read", map[string]any{"room_token": tb1}).out)
	cidB := b.must("negotiation_respond", map[string]any{"room_token": tb1, "verdict": "approve", "subject_hash": h1}).str("pending_confirmation", "id")
	cidA := a.must("negotiation_cancel", map[string]any{"room_token": ta1}).str("pending_confirmation", "id")
	// R2: b opened, a joined. R3: a's draft. c's own room with b, so c is a
	// real party somewhere.
	tb2, ta2, room2 := s.pair(b, a, raceSchema, nil, nil, feeTerms(secretFee+1))
	draft := a.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "title": secretTitle})
	ta3 := draft.str("room_token")
	tc4, _, _ := s.pair(c, b, raceSchema, nil, nil, feeTerms(11))
	foreign := map[string]string{"a's R1": ta1, "b's R1": tb1, "b's R2": tb2, "a's R2": ta2, "a's draft": ta3}
	secrets := []string{secretTitle, fmt.Sprint(secretFee), cidA, cidB, ta1, tb1, tb2, ta2, ta3, h1}

	before := s.pageState()
	type attempt struct {
		what string
		res  result
	}
	var tries []attempt
	try := func(what, tool string, args map[string]any) {
		tries = append(tries, attempt{what + ": " + tool, c.call(tool, args)})
	}
	for name, tok := range foreign {
		try(name, "negotiation_read", map[string]any{"room_token": tok})
		try(name, "negotiation_list", map[string]any{"room_tokens": []string{tok}})
		try(name+" among c's own", "negotiation_list", map[string]any{"room_tokens": []string{tc4, tok}})
		try(name, "negotiation_propose", map[string]any{"room_token": tok, "verdict": "counter", "subject": feeTerms(1)})
		try(name, "negotiation_propose", map[string]any{"room_token": tok, "verdict": "offer", "subject": feeTerms(1)})
		try(name, "negotiation_propose", map[string]any{"room_token": tok, "verdict": "need_more_detail", "fields": []string{"fee"}})
		try(name, "negotiation_respond", map[string]any{"room_token": tok, "verdict": "approve", "subject_hash": h1})
		try(name, "negotiation_respond", map[string]any{"room_token": tok, "verdict": "reject"})
		try(name, "negotiation_cancel", map[string]any{"room_token": tok})
	}
	try("a used invitation", "negotiation_join", map[string]any{"invite_code": usedCode, "subject_schema": raceSchema})
	try("a used invitation (URL)", "negotiation_join", map[string]any{"invite_url": s.base + "/i/" + usedCode, "subject_schema": raceSchema})
	try("the list's cursor past another's rooms", "negotiation_list", map[string]any{"cursor": fmt.Sprint(room2 + 1)})
	reads, writes := 0, 0
	for _, tr := range tries {
		body := tr.res.err
		if tr.res.out != nil {
			b, _ := jsonMarshal(tr.res.out)
			body = string(b)
		}
		for _, sec := range secrets {
			if strings.Contains(body, sec) {
				reads++
				t.Errorf("%s: c read %q: %s", tr.what, sec, clipArgs(body))
			}
		}
		if tr.res.out != nil && !strings.HasPrefix(tr.what, "the list's cursor") {
			t.Errorf("%s: answered, not refused: %s", tr.what, clipArgs(body))
		}
		if s.pageState() != before {
			writes++
			t.Errorf("%s changed what is stored", tr.what)
			before = s.pageState()
		}
	}
	mcpTries := len(tries)

	// c's key on the others' endpoints.
	keyTries := 0
	for _, victim := range []*tenant{a, b} {
		for _, tool := range fuzzTools {
			ans := s.rawPost("/mcp/"+victim.slug, c.key, toolCall(tool, []byte(toolArgs[tool].base)), nil)
			keyTries++
			if ans.status != http.StatusNotFound {
				t.Errorf("c's key on %s's endpoint, %s: HTTP %d %s", victim.slug, tool, ans.status, clipArgs(ans.body))
			}
		}
	}

	// The humans' side: c's owner signed in, with the others' room ids and
	// confirmation ids; and the service calls the dashboard makes.
	br := c.browser()
	br.do("GET", "/settings", nil)
	pageTries := 0
	page := func(method, path string, form url.Values) {
		pageTries++
		st, _, body := br.do(method, path, form)
		text := pageText(body)
		for _, sec := range secrets {
			if strings.Contains(body, sec) {
				reads++
				t.Errorf("%s %s: c's owner read %q", method, path, sec)
			}
		}
		if st == http.StatusOK || st == http.StatusSeeOther {
			t.Errorf("%s %s: HTTP %d %s", method, path, st, clipArgs(text))
		}
		if s.pageState() != before {
			writes++
			t.Errorf("%s %s changed what is stored", method, path)
			before = s.pageState()
		}
	}
	for _, id := range []int64{room1, room2} {
		page("GET", fmt.Sprintf("/rooms/%d", id), nil)
		page("GET", fmt.Sprintf("/rooms/%d?side=a", id), nil)
		page("GET", fmt.Sprintf("/rooms/%d?side=b", id), nil)
		for _, cid := range []string{cidA, cidB} {
			for _, h := range []string{"", h1} {
				page("POST", fmt.Sprintf("/rooms/%d/decide", id), url.Values{"answer": {"confirm"}, "confirmation_id": {cid}, "subject_hash": {h}})
			}
		}
	}
	// Live updates of another's room.
	streamTries := 0
	for _, id := range []int64{room1, room2} {
		streamTries++
		ctx, cancel := context.WithTimeout(s.ctx, 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/rooms/%d/events", s.base, id), nil)
		resp, err := br.http.Do(req)
		if err == nil {
			if resp.StatusCode == http.StatusOK {
				t.Errorf("c's owner streams room %d's live updates", id)
			}
			resp.Body.Close()
		}
		cancel()
	}
	serviceTries := 0
	for _, id := range []int64{room1, room2} {
		for _, cid := range []string{cidA, cidB} {
			for _, accept := range []bool{true, false} {
				serviceTries++
				if _, err := s.rooms.DecideAsOwner(s.ctx, c.user.ID, id, cid, negotiation.SubjectHash(h1), accept); err == nil {
					writes++
					t.Errorf("c's owner answered %s in room %d", cid, id)
				}
				serviceTries++
				if _, err := s.rooms.DecideAsOwner(s.ctx, c.user.ID, id, cid, "", accept); err == nil {
					writes++
					t.Errorf("c's owner answered %s in room %d", cid, id)
				}
			}
		}
		serviceTries++
		if _, err := s.rooms.ForHuman(s.ctx, c.user.ID, id, "", ""); err == nil {
			reads++
			t.Errorf("c's owner read room %d through the service", id)
		}
		serviceTries++
		if err := s.rooms.SeesRoom(s.ctx, c.user.ID, id); err == nil {
			reads++
			t.Errorf("c's owner sees room %d", id)
		}
	}
	if s.pageState() != before {
		t.Errorf("the service calls changed what is stored")
	}
	t.Logf("tenant isolation: %d tool calls with another tenant's tokens and codes, %d calls with c's key on others' endpoints, "+
		"%d pages and forms, %d live streams, %d service calls; reads: %d, writes: %d",
		mcpTries, keyTries, pageTries, streamTries, serviceTries, reads, writes)
}
