package negotiation

import (
	"encoding/json"
	"reflect"
	"testing"
)

// A move with four faults is refused once, naming all four; the message
// stays the first fault's (the vectors' text).
func TestEveryFaultAtOnce(t *testing.T) {
	schema := []byte(`{"qty":{"type":"int","label":"Quantity"},"fee":{"type":"money","label":"Fee","currency":"EUR"},"place":{"type":"enum","label":"Place","values":["office","video"]},"note":{"type":"string","label":"Note","optional":true}}`)
	p := openPlay(t, OpenRequest{Schema: schema, Limits: []byte(`{"qty":{"max":5}}`)})
	p.join(schema, nil)
	_, _, err := p.r.Propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"qty":9,"fee":{"amount":150,"currency":"EUR"},"notes":"x"}`)}, p.tick())
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("%T %v", err, err)
	}
	want := []Fault{
		{Field: "qty", Rule: RuleOutsideLimits, Message: "qty: outside your limits (max 5)"},
		{Field: "fee", Rule: RuleInvalidValue, Message: `fee.amount: must be a decimal string like "1500.00", not a number`},
		{Field: "notes", Rule: RuleUnknownField, Message: "unknown field: notes (your subject_schema has qty, fee, place, note)"},
		{Field: "place", Rule: RuleMissingField, Message: "missing required field: place"},
	}
	if !reflect.DeepEqual(bare(e.Faults), want) {
		b, _ := json.MarshalIndent(e.Faults, "", " ")
		t.Errorf("faults %s", b)
	}
	if !containsMessage(e.Faults, e.Message) {
		t.Errorf("message %q is none of the faults", e.Message)
	}
	// Options: each option's faults, by its place.
	_, _, err = p.r.Propose(SideA, Move{Verdict: VerdictOffer, Options: []json.RawMessage{
		[]byte(`{"qty":1,"fee":{"amount":"1.00","currency":"EUR"},"place":"video"}`),
		[]byte(`{"qty":7,"fee":{"amount":"1.00","currency":"EUR"},"place":"cafe"}`)}}, p.tick())
	e = err.(*Error)
	want = []Fault{
		{Field: "options[1].qty", Rule: RuleOutsideLimits, Message: "options[1]: qty: outside your limits (max 5)"},
		{Field: "options[1].place", Rule: RuleInvalidValue, Message: `options[1]: place: "cafe" is not one of office, video`},
	}
	if !reflect.DeepEqual(bare(e.Faults), want) || e.Message[:11] != "options[1]:" {
		b, _ := json.MarshalIndent(e, "", " ")
		t.Errorf("options: %s", b)
	}
	// Each fault's words: its place as written, the rule's key and what
	// fills it; the refusal's own words are its message's (place's).
	words := []Words{
		{At: "options[1]: qty", Key: "rule.outside_max", Args: []any{"5"}},
		{At: "options[1]: place", Key: "rule.not_one_of", Args: []any{"cafe", "office, video"}},
	}
	for i, f := range e.Faults {
		if !reflect.DeepEqual(f.Words, words[i]) {
			t.Errorf("fault %d words %#v, want %#v", i, f.Words, words[i])
		}
	}
	if !reflect.DeepEqual(e.Words, words[1]) {
		t.Errorf("refusal words %#v, want %#v", e.Words, words[1])
	}
	if b, _ := json.Marshal(e.Faults[0]); string(b) != `{"field":"options[1].qty","rule":"outside_your_limits","message":"options[1]: qty: outside your limits (max 5)"}` {
		t.Errorf("a fault's JSON changed: %s", b)
	}
}

// bare is faults without their words (TestFaultWords holds those).
func bare(fs []Fault) []Fault {
	out := make([]Fault, len(fs))
	for i, f := range fs {
		out[i] = Fault{Field: f.Field, Rule: f.Rule, Message: f.Message}
	}
	return out
}

func containsMessage(fs []Fault, m string) bool {
	for _, f := range fs {
		if f.Message == m || len(f.Message) > len(m) && f.Message[:len(m)] == m {
			return true
		}
	}
	return false
}
