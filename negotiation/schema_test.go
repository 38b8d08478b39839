package negotiation

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
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

func TestFormatValue(t *testing.T) {
	s := mustSchema(t, allTypes)
	terms := mustTerms(t, s, `{"topic":"Contract, v2","qty":-42,"ok":false,"day":"2026-12-24",`+
		`"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T10:30:00Z"},{"start":"2026-12-03T22:30:00Z","end":"2026-12-04T01:00:00Z"},{"start":"2026-12-03T22:30:00Z","end":"2026-12-03T23:30:00Z"}],`+
		`"fee":{"amount":"1500","currency":"JPY"},"place":"video"}`)
	cet := time.FixedZone("CET", 3600)
	field := func(name string) Field { f, _ := s.Field(name); return f }
	value := func(name string, i int) *Value { v, _ := terms.Values(name); return &v[i] }
	cases := []struct {
		name string
		i    int
		loc  *time.Location
		want string
	}{
		{"topic", 0, time.UTC, "Contract, v2"},
		{"qty", 0, time.UTC, "-42"},
		{"ok", 0, time.UTC, "no"},
		{"place", 0, time.UTC, "video"},
		{"fee", 0, time.UTC, "1500 JPY"},
		// A date is a day, the same in every zone.
		{"day", 0, time.UTC, "Thu 24 Dec 2026"},
		{"day", 0, time.FixedZone("HST", -10*3600), "Thu 24 Dec 2026"},
		{"when", 0, time.UTC, "Thu 3 Dec 2026, 09:00–10:30 (UTC)"},
		{"when", 0, time.FixedZone("UTC", 0), "Thu 3 Dec 2026, 09:00–10:30 (UTC)"},
		{"when", 0, cet, "Thu 3 Dec 2026, 10:00–11:30 (CET, UTC+01:00)"},
		{"when", 1, time.UTC, "Thu 3 Dec 2026 22:30 – Fri 4 Dec 2026 01:00 (UTC)"},
		// One day in UTC, two in the viewer's zone: the viewer's days count.
		{"when", 2, time.UTC, "Thu 3 Dec 2026, 22:30–23:30 (UTC)"},
		{"when", 2, cet, "Thu 3 Dec 2026 23:30 – Fri 4 Dec 2026 00:30 (CET, UTC+01:00)"},
		{"when", 2, time.FixedZone("NPT", 5*3600+45*60), "Fri 4 Dec 2026, 04:15–05:15 (NPT, UTC+05:45)"},
	}
	for _, c := range cases {
		if got := FormatValue(field(c.name), value(c.name, c.i), c.loc); got != c.want {
			t.Errorf("%s[%d] in %s: %q, want %q", c.name, c.i, c.loc, got, c.want)
		}
	}
	ok := Value{Bool: true}
	if got := FormatValue(field("ok"), &ok, time.UTC); got != "yes" {
		t.Errorf("true: %q", got)
	}
	vals, _ := terms.Values("when")
	if got := FormatValues(field("when"), vals[:2], time.UTC); got != "Thu 3 Dec 2026, 09:00–10:30 (UTC); Thu 3 Dec 2026 22:30 – Fri 4 Dec 2026 01:00 (UTC)" {
		t.Errorf("FormatValues: %q", got)
	}
	// Amounts keep exactly their currency's digits.
	for _, c := range []struct{ amount, currency, want string }{
		{"0.5", "EUR", "0.50 EUR"}, {"1500", "EUR", "1500.00 EUR"}, {"1.5", "BHD", "1.500 BHD"},
		{"7", "CLF", "7.0000 CLF"}, {"999999999999999999.99", "USD", "999999999999999999.99 USD"},
	} {
		terms := mustTerms(t, s, `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}],"place":"office",`+
			`"fee":{"amount":"`+c.amount+`","currency":"`+c.currency+`"}}`)
		v, _ := terms.Values("fee")
		if got := FormatValue(field("fee"), &v[0], time.UTC); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.amount, c.currency, got, c.want)
		}
	}
	// Plain text, as declared: a bool and a timerange written for a machine.
	okField, whenField := field("ok"), field("when")
	if got := string(okField.appendValueText(nil, &ok)); got != "true" {
		t.Errorf("plain bool: %q", got)
	}
	if got := string(whenField.appendValueText(nil, value("when", 0))); got != "2026-12-03T09:00:00Z/2026-12-03T10:30:00Z" {
		t.Errorf("plain timerange: %q", got)
	}
}

// TestFormatValueInANamelessZone documents a bug: a zone without a name but
// with an offset (time.FixedZone("", 3600)) is labelled "UTC" while the
// hours are written at +01:00.
func TestFormatValueInANamelessZone(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	terms := mustTerms(t, s, `{"t":{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T10:00:00Z"}}`)
	f, _ := s.Field("t")
	v, _ := terms.Values("t")
	got := FormatValue(f, &v[0], time.FixedZone("", 3600))
	if want := "Thu 3 Dec 2026, 10:00–11:00 (UTC+01:00)"; got != want && strings.Contains(got, "(UTC)") {
		t.Fatalf("%q, want the offset (e.g. %q)", got, want)
	}
}

func TestFormatBound(t *testing.T) {
	s := mustSchema(t, allTypes)
	l, err := s.ParseLimits([]byte(`{"qty":{"min":-5,"max":5},"day":{"min":"2026-12-01"},"slot":{"min":"2026-12-03T10:00:00+02:00","max":"2026-12-03T18:00:00.5Z"},"fee":{"max":{"amount":"10","currency":"EUR"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"qty":  {"-5", "5"},
		"day":  {"2026-12-01", ""},
		"slot": {"2026-12-03T08:00:00Z", "2026-12-03T18:00:00Z"}, // to the second, in UTC
		"fee":  {"", "10.00 EUR"},
	}
	for name, w := range want {
		lim, ok := l.Get(name)
		if !ok {
			t.Fatalf("no limit on %s", name)
		}
		for i, v := range []*Value{lim.Min, lim.Max} {
			got := ""
			if v != nil {
				got = FormatBound(lim.Field, v)
			}
			if got != w[i] {
				t.Errorf("%s bound %d: %q, want %q", name, i, got, w[i])
			}
		}
	}
	// Limits keep the schema's field order, whatever order they were written in.
	var names []string
	for _, lim := range l.List() {
		names = append(names, lim.Field.Name)
	}
	if !slices.Equal(names, []string{"qty", "day", "fee", "slot"}) {
		t.Errorf("limits in order %v", names)
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
	if got := clip(strings.Repeat("é", 40)); got != strings.Repeat("é", 40) {
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

func TestTermsRefusals(t *testing.T) {
	s := mustSchema(t, allTypes)
	base := `"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office","fee":{"amount":"1","currency":"EUR"}`
	when := `"when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}]`
	cases := []struct {
		name, terms, msg string
	}{
		{"too large", `{"topic":"` + strings.Repeat("a", MaxTermsBytes) + `"}`, "terms are larger than 262144 bytes"},
		{"not JSON", `{"qty":1,}`, "terms: not valid JSON: expected a key at byte 9"},
		{"not an object", `[]`, "terms must be an object of fields, not a list"},
		{"51 values", `{` + base + `,"when":[` + strings.TrimSuffix(strings.Repeat(`{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"},`, 51), ",") + `]}`, "when: at most 50 values"},
		{"a repeated field as one value", `{` + base + `,"when":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}}`, "when: must be a non-empty list"},
		{"an element not an object", `{` + base + `,"when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"},"soon"]}`, "when[1]: must be an object with start and end"},
		{"a fraction without digits", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00.Z","end":"2026-01-01T01:00:00Z"}}`, "slot.start: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"ten digits of fraction", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00.1234567891Z","end":"2026-01-01T01:00:00Z"}}`, "slot.start: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"a bad end", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01 01:00:00Z"}}`, "slot.end: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"an end that is no moment", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T25:00:00Z"}}`, "slot.end: 2026-01-01T25:00:00Z is not a real moment"},
		{"an offset without a colon", `{` + base + `,` + when + `,"slot":{"start":"2026-01-01T00:00:00+0100","end":"2026-01-01T01:00:00Z"}}`, "slot.start: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
		{"money as a string", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":"1 EUR"}`, `fee: must be an object like {"amount": "1500.00", "currency": "EUR"}`},
		{"money with cents", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1","currency":"EUR","cents":0}}`, "fee: unknown key: cents (money has amount and currency)"},
		{"money without a currency", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1"}}`, `fee: must be an object like {"amount": "1500.00", "currency": "EUR"}`},
		{"a currency not a string", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"1","currency":978}}`, "fee.currency: must be an ISO 4217 code like EUR"},
		{"a negative amount", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":"-1","currency":"EUR"}}`, "fee.amount: must not be negative"},
		{"an amount as a bool", `{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office",` + when + `,"fee":{"amount":true,"currency":"EUR"}}`, `fee.amount: must be a decimal string like "1500.00"`},
	}
	for _, c := range cases {
		_, err := s.ParseTerms([]byte(c.terms))
		wantErr(t, err, CodeInvalidTerms, c.msg)
	}
	// Nine digits of fraction are fine, and only non-zero ones are kept.
	terms := mustTerms(t, s, `{`+base+`,`+when+`,"slot":{"start":"2026-01-01T00:00:00.123456789+01:00","end":"2026-01-01T01:00:00.500Z"}}`)
	if !strings.Contains(string(terms.Canonical()), `"slot":{"end":"2026-01-01T01:00:00.5Z","start":"2025-12-31T23:00:00.123456789Z"}`) {
		t.Errorf("canonical %s", terms.Canonical())
	}
}

// TestCanonicalMomentsOutsideFourDigitYears documents a bug: a moment whose
// offset moves it past year 9999 (or before year 0) in UTC is accepted, but
// its canonical form writes a five-digit (or negative) year that ParseTerms
// refuses. The canonical form is then no fixed point, and a room with those
// terms on the table can be neither replayed nor restored.
func TestCanonicalMomentsOutsideFourDigitYears(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	for _, in := range []string{
		`{"t":{"start":"9999-12-31T23:00:00-02:00","end":"9999-12-31T23:30:00-02:00"}}`,
		`{"t":{"start":"0000-01-01T00:10:00+01:00","end":"0000-01-01T00:30:00+01:00"}}`,
	} {
		terms, err := s.ParseTerms([]byte(in))
		if err != nil {
			continue // refused up front: fine
		}
		if _, err := s.ParseTerms(terms.Canonical()); err != nil {
			t.Fatalf("%s is accepted, its canonical form %s is refused: %v", in, terms.Canonical(), err)
		}
	}
}

func TestLimitsExtras(t *testing.T) {
	s := mustSchema(t, allTypes)
	var none *Limits
	if none.List() != nil {
		t.Error("List of no limits")
	}
	if _, ok := none.Get("qty"); ok {
		t.Error("Get on no limits")
	}
	for _, empty := range []string{"", "  \n", "null", " null "} {
		l, err := s.ParseLimits([]byte(empty))
		if err != nil || string(l.Raw()) != "{}" || len(l.List()) != 0 {
			t.Errorf("%q: %v %s", empty, err, l.Raw())
		}
	}
	l, err := s.ParseLimits([]byte(`{}`))
	if err != nil || string(l.Raw()) != "{}" || len(l.List()) != 0 {
		t.Errorf("{}: %v", err)
	}
	if _, ok := l.Get("qty"); ok {
		t.Error("Get found a limit in {}")
	}
	cases := []struct{ limits, msg string }{
		{`{"qty":{"min":1` + strings.Repeat(" ", MaxSchemaBytes) + `}}`, "limits are larger than 65536 bytes"},
		{`{"qty":{"min":1}`, "limits: not valid JSON: expected ',' or '}' at byte 16"},
		{`[]`, "limits must be an object of fields"},
		{`{"ok":{}}`, "limits.ok: must be an object with equals"},
		{`{"ok":{"min":true}}`, "limits.ok: unknown bound: min (a bool field takes equals)"},
		{`{"ok":{"equals":"yes"}}`, "limits.ok.equals: must be true or false"},
		{`{"place":[]}`, "limits.place: must be an object with one_of"},
		{`{"place":{"one_of":["video","video"]}}`, `limits.place.one_of: lists "video" twice`},
		{`{"place":{"one_of":[]}}`, "limits.place.one_of: must be a non-empty list of the field's values"},
		{`{"qty":{"one_of":[1]}}`, "limits.qty: unknown bound: one_of (a int field takes min and max)"},
		{`{"topic":{"max":1}}`, "limits.topic: string fields take no limits"},
		{`{"fee":{"min":{"amount":"1","currency":"EUR"},"max":{"amount":"2","currency":"USD"}}}`, "limits.fee: min and max must be in the same currency"},
		{`{"slot":{"min":"2026-01-01T10:00:00Z","max":"2026-01-01T11:00:00+01:00"}}`, "limits.slot: min must be before max"},
		{`{"slot":{"min":{"start":"2026-01-01T10:00:00Z"}}}`, "limits.slot.min: must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00"},
	}
	for _, c := range cases {
		_, err := s.ParseLimits([]byte(c.limits))
		wantErr(t, err, CodeInvalidLimits, c.msg)
	}

	// Own terms: an absent optional field breaks nothing; the message names
	// the owner's bound.
	own, err := s.ParseLimits([]byte(`{"place":{"one_of":["video"]},"ok":{"equals":true},"slot":{"min":"2026-01-01T08:00:00Z"}}`))
	if err != nil {
		t.Fatal(err)
	}
	when := `"when":[{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T01:00:00Z"}]`
	for _, c := range []struct{ terms, msg string }{
		{`{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"video","fee":{"amount":"1","currency":"EUR"},` + when + `}`, ""},
		{`{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"office","fee":{"amount":"1","currency":"EUR"},` + when + `}`, "place: outside your limits (one of video)"},
		{`{"topic":"x","qty":1,"ok":false,"day":"2026-01-01","place":"video","fee":{"amount":"1","currency":"EUR"},` + when + `}`, "ok: outside your limits (must be true)"},
		{`{"topic":"x","qty":1,"ok":true,"day":"2026-01-01","place":"video","fee":{"amount":"1","currency":"EUR"},` + when + `,"slot":{"start":"2026-01-01T07:00:00Z","end":"2026-01-01T09:00:00Z"}}`, "slot: outside your limits (min 2026-01-01T08:00:00Z)"},
	} {
		err := own.CheckOwn(mustTerms(t, s, c.terms))
		if errText(err) != c.msg {
			t.Errorf("%s: %q, want %q", c.terms, errText(err), c.msg)
		}
		if err != nil && err.(*Error).Code != CodeOutsideOwnLimits {
			t.Errorf("code %s", err.(*Error).Code)
		}
	}
}

func TestMatchesAndOutsideLimits(t *testing.T) {
	eur := Field{Name: "fee", Type: TypeMoney, Currency: "EUR"}
	usd := Field{Name: "fee", Type: TypeMoney, Currency: "USD"}
	anyCur := Field{Name: "fee", Type: TypeMoney}
	for _, c := range []struct {
		a, b Field
		want bool
	}{
		{eur, eur, true}, {eur, anyCur, true}, {anyCur, usd, true}, {eur, usd, false}, {usd, eur, false},
		{eur, Field{Name: "fee", Type: TypeInt}, false}, {eur, Field{Name: "price", Type: TypeMoney, Currency: "EUR"}, false},
		{Field{Name: "n", Type: TypeInt}, Field{Name: "n", Type: TypeInt, Label: "other"}, true},
	} {
		if got := Matches(c.a, c.b); got != c.want {
			t.Errorf("Matches(%+v, %+v) = %v", c.a, c.b, got)
		}
	}

	mine := mustSchema(t, []byte(`{"fee":{"type":"money","label":"Fee","currency":"EUR"},"qty":{"type":"int","label":"Qty"},"n":{"type":"int","label":"N"}}`))
	myLimits, err := mine.ParseLimits([]byte(`{"fee":{"max":{"amount":"10","currency":"EUR"}},"qty":{"min":5},"n":{"max":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	// Their fee is in USD (no common field), their qty is absent, their n is text.
	theirs := mustSchema(t, []byte(`{"fee":{"type":"money","label":"Honorar","currency":"USD"},"qty":{"type":"int","label":"Menge","optional":true},"n":{"type":"string","label":"N"}}`))
	terms := mustTerms(t, theirs, `{"fee":{"amount":"99","currency":"USD"},"n":"99"}`)
	if got := OutsideLimits(mine, myLimits, theirs, terms); len(got) != 0 {
		t.Errorf("breaches on fields that do not match or are absent: %v", got)
	}
	terms = mustTerms(t, theirs, `{"fee":{"amount":"99","currency":"USD"},"qty":4,"n":"99"}`)
	if got := OutsideLimits(mine, myLimits, theirs, terms); !slices.Equal(got, []Breach{{"qty", BoundMin}}) {
		t.Errorf("breaches %v", got)
	}
	if got := OutsideLimits(mine, nil, theirs, terms); got != nil {
		t.Errorf("breaches without limits: %v", got)
	}
	// A money value in another currency than an unfixed field's bound
	// cannot be compared, so it is outside.
	free := mustSchema(t, []byte(`{"fee":{"type":"money","label":"Fee"}}`))
	freeLimits, _ := free.ParseLimits([]byte(`{"fee":{"min":{"amount":"1","currency":"EUR"},"max":{"amount":"10","currency":"EUR"}}}`))
	usdTerms := mustTerms(t, free, `{"fee":{"amount":"5","currency":"USD"}}`)
	if got := OutsideLimits(free, freeLimits, free, usdTerms); !slices.Equal(got, []Breach{{"fee", BoundMin}, {"fee", BoundMax}}) {
		t.Errorf("another currency: %v", got)
	}
}

func TestNoDealPossibleEdges(t *testing.T) {
	cases := []struct {
		name, schemaA, limitsA, schemaB, limitsB string
		want                                     []string
	}{
		{"int ranges that overlap", `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":0,"max":100}}`, `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":60,"max":80}}`, nil},
		{"int ranges that touch", `{"n":{"type":"int","label":"N"}}`, `{"n":{"max":10}}`, `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":10}}`, nil},
		{"int ranges apart", `{"n":{"type":"int","label":"N"}}`, `{"n":{"max":100}}`, `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":150,"max":200}}`, []string{"n"}},
		{"a timerange window that only touches", `{"t":{"type":"timerange","label":"T"}}`, `{"t":{"max":"2026-01-01T10:00:00Z"}}`, `{"t":{"type":"timerange","label":"T"}}`, `{"t":{"min":"2026-01-01T11:00:00+01:00"}}`, []string{"t"}},
		{"money in two currencies cannot be compared", `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"min":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"1","currency":"USD"}}}`, nil},
		{"money in the same currency", `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"min":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"1","currency":"EUR"}}}`, []string{"fee"}},
		{"one side's limits alone rule nothing out", `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":5,"max":5}}`, `{"n":{"type":"int","label":"N"}}`, ``, nil},
		{"enum limits against the other's values", `{"p":{"type":"enum","label":"P","values":["a","b","c"]}}`, `{"p":{"one_of":["c"]}}`, `{"p":{"type":"enum","label":"P","values":["a","b"]}}`, ``, []string{"p"}},
		{"bools that differ", `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":true}}`, `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":false}}`, []string{"ok"}},
		{"a field of another type is not shared", `{"n":{"type":"int","label":"N"}}`, `{"n":{"max":1}}`, `{"n":{"type":"date","label":"N"}}`, `{"n":{"min":"2026-01-01"}}`, nil},
	}
	for _, c := range cases {
		sa, sb := mustSchema(t, []byte(c.schemaA)), mustSchema(t, []byte(c.schemaB))
		la, err := sa.ParseLimits([]byte(c.limitsA))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lb, err := sb.ParseLimits([]byte(c.limitsB))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ab, ba := NoDealPossible(sa, la, sb, lb), NoDealPossible(sb, lb, sa, la)
		if !slices.Equal(ab, c.want) || !slices.Equal(ba, c.want) {
			t.Errorf("%s: %v and %v, want %v both ways", c.name, ab, ba, c.want)
		}
	}
}
