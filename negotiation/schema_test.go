package negotiation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

var allTypes = []byte(`{"topic":{"type":"string","label":"Topic"},"qty":{"type":"int","label":"Qty"},"ok":{"type":"bool","label":"OK"},` +
	`"day":{"type":"date","label":"Day"},"when":{"type":"timerange","label":"When","repeated":true},` +
	`"fee":{"type":"money","label":"Fee"},"place":{"type":"enum","label":"Where","values":["office","video"]},` +
	`"slot":{"type":"timerange","label":"Slot","optional":true}}`)

func mustTerms(t *testing.T, s *Schema, raw string) *Terms {
	t.Helper()
	terms, err := s.ParseTerms([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return terms
}

func wantErr(t *testing.T, err error, code Code, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Code != code || e.Message != msg {
		t.Errorf("error %v, want %s %q", err, code, msg)
	}
}

func TestSchemaExtras(t *testing.T) {
	a := mustSchema(t, []byte(`{"b":{"type":"int","label":"B"},"a":{"label":"A","type":"bool","optional":false}}`))
	b := mustSchema(t, []byte(" {\n \"a\" : {\"type\":\"bool\",\"label\":\"A\"}, \"b\":{\"type\":\"int\",\"label\":\"B\"}}"))
	if a.Fingerprint() != b.Fingerprint() || a.Fingerprint() != hashOf(a.Canonical()) {
		t.Errorf("the same schema written two ways: %s, %s", a.Fingerprint(), b.Fingerprint())
	}
	if string(a.Canonical()) != `{"a":{"label":"A","type":"bool"},"b":{"label":"B","type":"int"}}` {
		t.Errorf("canonical %s", a.Canonical())
	}
	if a.Fields()[0].Name != "b" || b.Fields()[0].Name != "a" {
		t.Error("Fields is not in declaration order")
	}
	c := mustSchema(t, []byte(`{"a":{"type":"bool","label":"A!"},"b":{"type":"int","label":"B"}}`))
	if c.Fingerprint() == a.Fingerprint() {
		t.Error("another label, the same fingerprint")
	}
	if HashOf(a.Canonical()) != a.Fingerprint() {
		t.Error("HashOf")
	}

	_, _, err := ParseSchema([]byte(`{"a":` + strings.Repeat(" ", MaxSchemaBytes) + `1}`))
	wantErr(t, err, CodeInvalidSchema, "subject_schema is larger than 65536 bytes")
	_, _, err = ParseSchema([]byte(`{"a":{"type":"int","label":"A"},"a":{"type":"int","label":"A"}}`))
	wantErr(t, err, CodeInvalidSchema, `subject_schema: not valid JSON: key "a" appears twice`)
	_, _, err = ParseSchema([]byte(`{"` + strings.Repeat("É", 45) + `":{}}`))
	wantErr(t, err, CodeInvalidSchema, `field name "`+strings.Repeat("É", 40)+`…": use lowercase letters, digits and _, starting with a letter, at most 32 characters`)
	if got := Clip(strings.Repeat("é", 40)); got != strings.Repeat("é", 40) {
		t.Errorf("clip of 40 characters: %q", got)
	}
	if got := SlotsSchema().Canonical(); string(got) != `{"meeting_time":{"label":"Meeting time","type":"timerange"}}` {
		t.Errorf("slots schema %s", got)
	}
}

func TestSchemaWarnings(t *testing.T) {
	var many []string
	for i := range 13 {
		many = append(many, fmt.Sprintf(`"f%d":{"type":"int","label":"Field %d"}`, i, i))
	}
	cases := []struct {
		schema string
		want   []string
	}{
		{`{"meeting":{"type":"timerange","label":"Meeting"},"length":{"type":"int","label":"How long"}}`,
			[]string{"length: a timerange already says how long; a separate duration can contradict it"}},
		{`{"meeting":{"type":"timerange","label":"Meeting"},"n":{"type":"int","label":"Dauer (Minuten)"}}`,
			[]string{"n: a timerange already says how long; a separate duration can contradict it"}},
		// Without a timerange, a duration is just a number.
		{`{"minutes":{"type":"int","label":"Minutes"}}`, nil},
		{`{"start_time":{"type":"string","label":"start_time"}}`, []string{
			"start_time: a moment or a day written as text cannot be checked; use a timerange or a date",
			"start_time: the label is the field's name; write it for a person"}},
		{`{"budget":{"type":"string","label":"Budget"}}`, []string{"budget: an amount written as text cannot be checked; use money"}},
		{`{"trip_start":{"type":"date","label":"From"},"trip_end":{"type":"date","label":"To"}}`, []string{
			"trip_start: a start and an end are one timerange, not two fields",
			"trip_end: a start and an end are one timerange, not two fields"}},
		{`{"end":{"type":"string","label":"End"}}`, []string{"end: a start and an end are one timerange, not two fields"}},
		{`{"place":{"type":"string","label":"place"}}`, nil}, // the name as label, but a word
		{"{" + strings.Join(many, ",") + "}", []string{"13 fields: add a field only if the two sides might actually differ on it"}},
		{"{" + strings.Join(many[:12], ",") + "}", nil},
	}
	for _, c := range cases {
		_, got, err := ParseSchema([]byte(c.schema))
		if err != nil {
			t.Errorf("%s: %v", c.schema, err)
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.schema, got, c.want)
		}
	}
}
