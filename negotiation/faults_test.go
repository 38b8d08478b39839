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
		{"qty", RuleOutsideLimits, "qty: outside your limits (max 5)"},
		{"fee", RuleInvalidValue, `fee.amount: must be a decimal string like "1500.00", not a number`},
		{"notes", RuleUnknownField, "unknown field: notes (your subject_schema has qty, fee, place, note)"},
		{"place", RuleMissingField, "missing required field: place"},
	}
	if !reflect.DeepEqual(e.Faults, want) {
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
		{"options[1].qty", RuleOutsideLimits, "options[1]: qty: outside your limits (max 5)"},
		{"options[1].place", RuleInvalidValue, `options[1]: place: "cafe" is not one of office, video`},
	}
	if !reflect.DeepEqual(e.Faults, want) || e.Message[:11] != "options[1]:" {
		b, _ := json.MarshalIndent(e, "", " ")
		t.Errorf("options: %s", b)
	}
}

func containsMessage(fs []Fault, m string) bool {
	for _, f := range fs {
		if f.Message == m || len(f.Message) > len(m) && f.Message[:len(m)] == m {
			return true
		}
	}
	return false
}
