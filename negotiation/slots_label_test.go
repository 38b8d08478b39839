package negotiation

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The slots shorthand's schema is marked as Taasky's (Field.Shorthand,
// carried onto the card), without a word of its own; the mark is no part
// of the schema's canonical form, of the terms' subject_hash or of the
// card an agent can read. Any other schema, even one differing only in
// its label, is a party's words.
func TestSlotsSchemaIsMarkedAsTaaskys(t *testing.T) {
	s := SlotsSchema()
	if !s.IsSlots() || !s.Fields()[0].Shorthand {
		t.Fatalf("SlotsSchema is not marked: %+v", s.Fields())
	}
	if string(s.Canonical()) != `{"meeting_time":{"label":"Meeting time","type":"timerange"}}` {
		t.Errorf("the canonical form changed: %s", s.Canonical())
	}
	other, _, err := ParseSchema([]byte(`{"meeting_time":{"type":"timerange","label":"Café chez Lina"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if other.IsSlots() || other.Fields()[0].Shorthand {
		t.Errorf("a party's schema is marked as Taasky's: %+v", other.Fields())
	}
	terms := []byte(`{"meeting_time":{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T09:30:00Z"}}`)
	a, err := s.ParseTerms(terms)
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.ParseTerms(terms)
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash() != b.Hash() {
		t.Errorf("the label is part of subject_hash: %s and %s", a.Hash(), b.Hash())
	}

	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r, _, _, err := Open(OpenRequest{Slots: []json.RawMessage{json.RawMessage(`{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T09:30:00Z"}`)}}, at)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Card(SideA, true, time.UTC)
	if c == nil || len(c.Options) != 1 || !c.Options[0].Fields[0].Shorthand || c.Options[0].Fields[0].Label != "Meeting time" {
		t.Fatalf("the card's field is not marked: %+v", c)
	}
	raw, _ := json.Marshal(c)
	if strings.Contains(string(raw), "horthand") {
		t.Errorf("the mark shows in the card's JSON: %s", raw)
	}
}
