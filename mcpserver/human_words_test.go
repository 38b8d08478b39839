package mcpserver

import (
	"strings"
	"testing"
)

// TestForYourHumanSaysWhatTheOtherSideDid: for_your_human tells a human
// that the other side approved the terms they are shown (so their approval
// agrees the room) and what the other side asked more detail on; it marks
// as "their words" only what the other side wrote, and does not ask them
// to check a new form for terms their own side wrote.
func TestForYourHumanSaysWhatTheOtherSideDid(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{
		"n":    map[string]any{"type": "int", "label": "N"},
		"note": map[string]any{"type": "string", "label": "Note"},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	ta := open["room_token"].(string)
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema})
	tb := join["room_token"].(string)
	human := func(side, token string) string {
		t.Helper()
		return e.must(t, side, "negotiation_read", map[string]any{"room_token": token})["room"].(map[string]any)["for_your_human"].(string)
	}
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer",
		"subject": map[string]any{"n": 7, "note": "my own words"}})

	// Own words are not theirs; the other side's are.
	if h := human("a", ta); !strings.Contains(h, `- Note: "my own words"`+"\n") {
		t.Fatalf("a's own note is marked as the other side's words:\n%s", h)
	}
	if h := human("b", tb); !strings.Contains(h, `- Note: "my own words" (their words)`) {
		t.Fatalf("b is not told the note is a's words:\n%s", h)
	}

	// b asks for more detail on n: a's human is told on which field.
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "need_more_detail", "fields": []string{"n"}})
	if h := human("a", ta); !strings.Contains(h, "They asked for more detail on: N\n") {
		t.Fatalf("a's human is not told what b asked about:\n%s", h)
	}
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "counter",
		"subject": map[string]any{"n": 8, "note": "my own words"}})
	if h := human("a", ta); strings.Contains(h, "more detail") {
		t.Fatalf("the ask is still told once a answered it:\n%s", h)
	}

	// b approves, and b's human confirms: a's human is told that their
	// approval agrees the room, before and while they are asked.
	read := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)
	hash := read["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["subject_hash"]
	out := e.must(t, "b", "negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": hash})
	e.confirm(t, "b", tb, out, true)
	const agrees = "The other side approved these terms: if you approve, they are agreed."
	if h := human("a", ta); !strings.Contains(h, agrees) {
		t.Fatalf("a's human is not told b approved:\n%s", h)
	}
	if h := human("b", tb); strings.Contains(h, agrees) {
		t.Fatalf("b's human is told the other side approved:\n%s", h)
	}
	out = e.must(t, "a", "negotiation_respond", map[string]any{"room_token": ta, "verdict": "approve", "subject_hash": hash})
	h := out["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(h, agrees) {
		t.Fatalf("a's human, asked to approve, is not told it agrees the room:\n%s", h)
	}
	// The terms are a's own: no other side's form to check them through.
	if strings.Contains(h, "have not agreed under before") {
		t.Fatalf("a's human is asked to check a new form on their own terms:\n%s", h)
	}

	// a's human declines: a's agent is told so in words, not a verdict's name.
	e.confirm(t, "a", ta, out, false)
	say := e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta})["room"].(map[string]any)["next"].(map[string]any)["say"].(string)
	if !strings.Contains(say, "Your human declined to approve the terms "+hash.(string)) {
		t.Fatalf("next.say after a decline: %q", say)
	}
	e.check(t)
}

// TestForYourHumanQuotesEachValue: a repeated string field's values are
// quoted one by one, so that one value "logo; website" reads apart from
// two, "logo" and "website": other terms, written alike once joined.
func TestForYourHumanQuotesEachValue(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"items": map[string]any{"type": "string", "label": "Deliverables", "repeated": true}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"items": []string{"logo; website", "print"}}})
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema})
	h := join["room"].(map[string]any)["for_your_human"].(string)
	if want := `- Deliverables: "logo; website", "print" (their words)`; !strings.Contains(h, want) {
		t.Errorf("for_your_human does not quote each value, want %s:\n%s", want, h)
	}
}
