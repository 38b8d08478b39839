package negotiation

import (
	"slices"
	"strings"
	"testing"
)

func TestFormatBound(t *testing.T) {
	s := mustSchema(t, allTypes)
	l, err := s.ParseLimits([]byte(`{"qty":{"min":-5,"max":5},"day":{"min":"2026-12-01"},"slot":{"min":"2026-12-03T10:00:00+02:00","max":"2026-12-03T18:00:00.5Z"},"fee":{"max":{"amount":"10","currency":"EUR"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"qty":  {"-5", "5"},
		"day":  {"2026-12-01", ""},
		"slot": {"2026-12-03T08:00:00Z", "2026-12-03T18:00:00.5Z"}, // in UTC, as declared (its fraction too)
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
		{`{"qty":{"equals":true}}`, "limits.qty: unknown bound: equals (an int field takes min and/or max)"},
		{`{"place":[]}`, "limits.place: must be an object with one_of"},
		{`{"place":{"one_of":["video","video"]}}`, `limits.place.one_of: lists "video" twice`},
		{`{"place":{"one_of":[]}}`, "limits.place.one_of: must be a non-empty list of the field's values"},
		{`{"qty":{"one_of":[1]}}`, "limits.qty: unknown bound: one_of (an int field takes min and/or max)"},
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
		// An amount in another currency than a bound is outside it (check), so
		// bounds in two currencies leave no amount within both.
		{"money bounds in two currencies", `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"min":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"1","currency":"USD"}}}`, []string{"fee"}},
		{"money bounds in two currencies whose numbers meet", `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"100","currency":"USD"}}}`, []string{"fee"}},
		{"money in the same currency", `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"min":{"amount":"100","currency":"EUR"}}}`, `{"fee":{"type":"money","label":"F"}}`, `{"fee":{"max":{"amount":"1","currency":"EUR"}}}`, []string{"fee"}},
		{"one side's limits alone rule nothing out", `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":5,"max":5}}`, `{"n":{"type":"int","label":"N"}}`, ``, nil},
		// Seed 000: both sides' limits; the other side's schema values are
		// its own terms' vocabulary, no bound (its terms may say "c").
		{"enum limits against the other's values", `{"p":{"type":"enum","label":"P","values":["a","b","c"]}}`, `{"p":{"one_of":["c"]}}`, `{"p":{"type":"enum","label":"P","values":["a","b"]}}`, ``, nil},
		{"enum limits apart", `{"p":{"type":"enum","label":"P","values":["a","b","c"]}}`, `{"p":{"one_of":["c"]}}`, `{"p":{"type":"enum","label":"P","values":["a","b"]}}`, `{"p":{"one_of":["a","b"]}}`, []string{"p"}},
		{"enum limits that share a value", `{"p":{"type":"enum","label":"P","values":["a","b","c"]}}`, `{"p":{"one_of":["b","c"]}}`, `{"p":{"type":"enum","label":"P","values":["a","b"]}}`, `{"p":{"one_of":["b"]}}`, nil},
		{"bools that differ", `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":true}}`, `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":false}}`, []string{"ok"}},
		{"bools that agree", `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":true}}`, `{"ok":{"type":"bool","label":"OK"}}`, `{"ok":{"equals":true}}`, nil},
		// Bounds on one end only, on both sides: the range is open, a deal possible.
		{"both only a min", `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":5}}`, `{"n":{"type":"int","label":"N"}}`, `{"n":{"min":500}}`, nil},
		{"both only a max", `{"d":{"type":"date","label":"D"}}`, `{"d":{"max":"2026-01-01"}}`, `{"d":{"type":"date","label":"D"}}`, `{"d":{"max":"2027-01-01"}}`, nil},
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

// TestLimitsSame: limits are the same however written (amounts, one_of's
// order, offsets), and differ by any bound.
func TestLimitsSame(t *testing.T) {
	s := mustSchema(t, []byte(`{"fee":{"type":"money","label":"F","currency":"EUR"},"p":{"type":"enum","label":"P","values":["a","b","c"]},"t":{"type":"timerange","label":"T"},"ok":{"type":"bool","label":"OK"}}`))
	parse := func(raw string) *Limits {
		t.Helper()
		l, err := s.ParseLimits([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	base := parse(`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`)
	if !base.Same(parse(`{"ok":{"equals":true},"t":{"min":"2026-01-01T09:00:00Z"},"p":{"one_of":["b","a"]},"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`)) {
		t.Error("the same limits written otherwise differ")
	}
	for _, other := range []string{
		`{"fee":{"max":{"amount":"100.01","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`,
		`{"fee":{"min":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`,
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","c"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`,
		// one_of widened or narrowed by a value: not the same limit.
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b","c"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`,
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["b"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":true}}`,
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00Z"},"ok":{"equals":true}}`,
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00+01:00"},"ok":{"equals":false}}`,
		`{"fee":{"max":{"amount":"100","currency":"EUR"}},"p":{"one_of":["a","b"]},"t":{"min":"2026-01-01T10:00:00+01:00"}}`,
		``,
	} {
		if base.Same(parse(other)) {
			t.Errorf("%s: the same as the base", other)
		}
	}
	if !parse(``).Same(parse(`{}`)) || !parse(`null`).Same(nil) {
		t.Error("no limits differ from no limits")
	}
	// The same bound on another field is another limit.
	two := mustSchema(t, []byte(`{"n":{"type":"int","label":"N"},"m":{"type":"int","label":"M"}}`))
	onN, _ := two.ParseLimits([]byte(`{"n":{"min":1}}`))
	onM, _ := two.ParseLimits([]byte(`{"m":{"min":1}}`))
	if onN.Same(onM) || onM.Same(onN) {
		t.Error("a bound on n is the same as that bound on m")
	}
}
