package form

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

const schemaJSON = `{"when":{"type":"timerange","label":"When","repeated":true},"day":{"type":"date","label":"Day","optional":true},
"qty":{"type":"int","label":"Quantity"},"ok":{"type":"bool","label":"OK"},"place":{"type":"enum","label":"Where","values":["office","video"]},
"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true},"tip":{"type":"money","label":"Tip","optional":true},
"note":{"type":"string","label":"Note","optional":true}}`

func schema(t *testing.T) *negotiation.Schema {
	s, _, err := negotiation.ParseSchema([]byte(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestParseEveryType: each control becomes its JSON value (moments with
// the chosen zone's offset, an unticked box as false, empty optional
// fields absent, empty repeated rows left out), and the result is valid
// terms for the schema.
func TestParseEveryType(t *testing.T) {
	s := schema(t)
	form := url.Values{
		"f.when.0.start": {"2026-12-03T10:00"}, "f.when.0.end": {"2026-12-03T10:30"}, "f.when.0.zone": {"Europe/Paris"},
		"f.when.1.start": {""}, "f.when.1.end": {""}, "f.when.1.zone": {"UTC"},
		"f.when.2.start": {"2026-12-04T09:00"}, "f.when.2.end": {"2026-12-04T09:15"}, "f.when.2.zone": {"UTC"},
		"f.day.0.v": {""}, "f.qty.0.v": {"3"}, "f.place.0.v": {"video"},
		"f.fee.0.amount": {"12.50"}, "f.tip.0.amount": {"2"}, "f.tip.0.currency": {"USD"}, "f.note.0.v": {"hi <b>"},
	}
	raw, fields, ok := Parse(s, form, locale.English())
	if !ok {
		t.Fatalf("not ok: %+v", fields)
	}
	terms, err := s.ParseTerms(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	for _, want := range []string{`"start":"2026-12-03T10:00:00+01:00"`, `"ok":false`, `"qty":3`, `"currency":"USD"`, `"note":"hi \u003cb\u003e"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s lacks %s", raw, want)
		}
	}
	if vals, _ := terms.Values("when"); len(vals) != 2 || terms.Has("day") {
		t.Fatalf("repeated rows and optional fields: %s", raw)
	}
}

// TestParseErrorsNameTheField: what the form cannot send well-formed is
// reported beside its field; negotiation's messages attach to the field
// they name.
func TestParseErrorsNameTheField(t *testing.T) {
	s := schema(t)
	form := url.Values{"f.when.0.start": {"2026-12-03T10:00"}, "f.when.0.end": {""}, "f.when.0.zone": {"UTC"},
		"f.qty.0.v": {"three"}, "f.tip.0.amount": {"2"}, "f.place.0.v": {""}}
	_, fields, ok := Parse(s, form, locale.English())
	if ok {
		t.Fatal("a broken form parsed")
	}
	errs := map[string]string{}
	for _, f := range fields {
		errs[f.Name] = f.Error
	}
	want := map[string]string{"when": "When (1): give both a start and an end", "qty": "Quantity: must be a whole number like 30",
		"tip": "Tip: currency: required with an amount", "place": "Where: required", "ok": "", "fee": ""}
	for name, msg := range want {
		if errs[name] != msg {
			t.Errorf("%s: %q, want %q", name, errs[name], msg)
		}
	}
	en := locale.English()
	refusal := func(terms string) (string, negotiation.Words) {
		t.Helper()
		_, err := s.ParseTerms([]byte(terms))
		e, ok := err.(*negotiation.Error)
		if !ok {
			t.Fatalf("%s: %v", terms, err)
		}
		return e.Message, e.Words
	}
	const valid = `"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"}],"qty":1,"ok":true`
	msg, words := refusal(`{` + valid + `}`)
	if !Attach(fields, msg, words, en) || fields[4].Error != "Where: required" {
		t.Fatalf("a missing-field message is not attached by label: %q", fields[4].Error)
	}
	msg, words = refusal(`{` + valid + `,"place":"boat"}`)
	if !Attach(fields, msg, words, en) || fields[4].Error != `Where: "boat" is not one of office, video` {
		t.Fatalf("a path, not the label: %q", fields[4].Error)
	}
	msg, words = refusal(`{` + valid + `,"place":"video","tip":{"amount":"1.234","currency":"EUR"}}`)
	if !Attach(fields, msg, words, en) || fields[6].Error != "Tip: EUR has at most 2 decimals" {
		t.Fatalf("a sub-path, not the label: %q", fields[6].Error)
	}
	msg, words = refusal(`{"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"},{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T09:30:00Z"}],"qty":1,"ok":true,"place":"video"}`)
	if !Attach(fields, msg, words, en) || fields[0].Error != "When (2): end must be after start" {
		t.Fatalf("a repeated field's row: %q", fields[0].Error)
	}
	// In German: the label as the party wrote it, the rule in the reader's words.
	if !Attach(fields, msg, words, locale.NewPrinter("de")) || fields[0].Error != "When (2): das Ende muss nach dem Beginn liegen" {
		t.Fatalf("in German: %q", fields[0].Error)
	}
	msg, words = refusal(`[]`)
	if Attach(fields, msg, words, en) {
		t.Fatal("a message naming no field was attached")
	}
	// A message the catalog has no words for is attached by its path.
	if !Attach(fields, "tip.amount: some rule", negotiation.Words{}, en) || fields[6].Error != "Tip: some rule" {
		t.Fatalf("English only: %q", fields[6].Error)
	}
}

// TestUnknownZoneQuotedShort: a zone name that is none is quoted in its
// refusal to 40 characters, whatever was typed (a form may hold megabytes);
// the field itself shows what was typed.
func TestUnknownZoneQuotedShort(t *testing.T) {
	typed := "Europe/" + strings.Repeat("Atlantis", 10_000)
	form := url.Values{"f.when.0.start": {"2026-12-03T10:00"}, "f.when.0.end": {"2026-12-03T10:30"}, "f.when.0.zone": {typed},
		"f.qty.0.v": {"1"}, "f.place.0.v": {"video"}}
	_, fields, ok := Parse(schema(t), form, locale.English())
	want := `When (1): time zone: "Europe/` + strings.Repeat("Atlantis", 5)[:33] + `…" is not an IANA time zone like Europe/Paris`
	if ok || fields[0].Error != want || fields[0].Rows[0].Zone != typed {
		t.Fatalf("ok %v, %d bytes: %.200q", ok, len(fields[0].Error), fields[0].Error)
	}
}

// TestPrefillRoundTrips: a form prefilled from terms parses back to them,
// moments with seconds or a fraction of one too (a person who changes
// another field does not move the time they left as it was).
func TestPrefillRoundTrips(t *testing.T) {
	for _, in := range []string{
		`{"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"}],"qty":2,"ok":true,"place":"office","fee":{"amount":"5.00","currency":"EUR"}}`,
		`{"when":[{"start":"2026-12-03T09:00:30Z","end":"2026-12-03T09:30:00.25Z"},{"start":"2026-12-04T05:30:15Z","end":"2026-12-04T06:30:45.123456789Z"}],"qty":2,"ok":true,"place":"office"}`,
	} {
		prefillRoundTrip(t, in)
	}
}

func prefillRoundTrip(t *testing.T, in string) {
	t.Helper()
	s := schema(t)
	terms, err := s.ParseTerms([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("America/New_York")
	fields := Prefill(s, terms.Values, loc, locale.English())
	form := formOf(fields)
	raw, _, ok := Parse(s, form, locale.English())
	back, err := s.ParseTerms(raw)
	if !ok || err != nil || back.Hash() != terms.Hash() {
		t.Fatalf("round trip of %s: %v %s", in, err, raw)
	}
}

// TestParseRefusesClockChanges: a wall-clock time the zone skips (clocks
// forward) or repeats (clocks back) is refused with the field named, not
// moved an hour or resolved to one of two moments; the day after is fine.
func TestParseRefusesClockChanges(t *testing.T) {
	en := locale.English()
	for _, c := range []struct{ start, end, want string }{
		{"2026-03-29T02:30", "2026-03-29T04:00", "When (1): start: 2026-03-29T02:30 is not one moment in Europe/Berlin (the clocks change that day): choose another time"},
		{"2026-10-25T01:00", "2026-10-25T02:30", "When (1): end: 2026-10-25T02:30 is not one moment in Europe/Berlin (the clocks change that day): choose another time"},
	} {
		form := url.Values{"f.when.0.start": {c.start}, "f.when.0.end": {c.end}, "f.when.0.zone": {"Europe/Berlin"},
			"f.qty.0.v": {"3"}, "f.place.0.v": {"video"}}
		raw, fields, ok := Parse(schema(t), form, en)
		if ok || fields[0].Error != c.want {
			t.Errorf("%s–%s: ok %v, %s, error %q\nwant %q", c.start, c.end, ok, raw, fields[0].Error, c.want)
		}
	}
	form := url.Values{"f.when.0.start": {"2026-03-30T02:30"}, "f.when.0.end": {"2026-10-26T02:30:00"}, "f.when.0.zone": {"Europe/Berlin"},
		"f.qty.0.v": {"3"}, "f.place.0.v": {"video"}}
	if raw, fields, ok := Parse(schema(t), form, en); !ok || !strings.Contains(string(raw), `"start":"2026-03-30T02:30:00+02:00"`) || !strings.Contains(string(raw), `"end":"2026-10-26T02:30:00+01:00"`) {
		t.Errorf("ordinary days: ok %v, %s, %q", ok, raw, fields[0].Error)
	}
}

// TestParseWholeNumberSpellings: a whole number is read however a person
// or their browser's number box writes it ("0005" as typed, "+5"), and
// written as JSON writes it; anything else is refused beside its field.
// A form that cannot be sent is never refused without a word.
func TestParseWholeNumberSpellings(t *testing.T) {
	s := schema(t)
	for _, c := range []struct{ typed, want string }{
		{"0005", `"qty":5`}, {"+5", `"qty":5`}, {"-0", `"qty":0`}, {"-007", `"qty":-7`},
		{" 5", ""}, {"5.", ""}, {".5", ""}, {"1e3", ""}, {"0x10", ""}, {"5,0", ""}, {"１２", ""}, {"99999999999999999999", ""},
	} {
		form := url.Values{"f.when.0.start": {"2026-12-03T10:00"}, "f.when.0.end": {"2026-12-03T10:30"}, "f.when.0.zone": {"UTC"},
			"f.qty.0.v": {c.typed}, "f.place.0.v": {"video"}}
		raw, fields, ok := Parse(s, form, locale.English())
		var qtyErr string
		for _, f := range fields {
			if f.Name == "qty" {
				qtyErr = f.Error
			}
		}
		switch {
		case c.want != "" && (!ok || !strings.Contains(string(raw), c.want)):
			t.Errorf("%q: ok %v, %s, error %q; want %s", c.typed, ok, raw, qtyErr, c.want)
		case c.want != "":
			if _, err := s.ParseTerms(raw); err != nil {
				t.Errorf("%q: %s: %v", c.typed, raw, err)
			}
		case ok || qtyErr != "Quantity: must be a whole number like 30":
			t.Errorf("%q: ok %v, error %q", c.typed, ok, qtyErr)
		}
	}
}

// TestAmountsInTheReadersMark: the counter form writes and reads amounts
// with the reader's decimal mark: a German is shown one and a half dinars
// as "1,500" (as the card writes it), types "1500" for fifteen hundred and
// "1,5" for one and a half, and a point, which they would read as a
// thousands separator ("1.500" was taken as one and a half), is refused
// beside the field. A reader of decimal points types the terms' own form.
func TestAmountsInTheReadersMark(t *testing.T) {
	s, _, err := negotiation.ParseSchema([]byte(`{"fee":{"type":"money","label":"Fee","currency":"BHD"}}`))
	if err != nil {
		t.Fatal(err)
	}
	terms, err := s.ParseTerms([]byte(`{"fee":{"amount":"1.5","currency":"BHD"}}`))
	if err != nil {
		t.Fatal(err)
	}
	de, fr, en := locale.NewPrinter("de"), locale.NewPrinter("fr"), locale.English()
	if got := Prefill(s, terms.Values, time.UTC, de)[0].Rows[0].Amount; got != "1,500" {
		t.Errorf("de prefill: %q", got)
	}
	if got := Prefill(s, terms.Values, time.UTC, en)[0].Rows[0].Amount; got != "1.500" {
		t.Errorf("en prefill: %q", got)
	}
	const mark = "Fee: Betrag mit Dezimalkomma und ohne Tausendertrennzeichen schreiben, wie 1500,50"
	for _, c := range []struct {
		w           *locale.Printer
		typed, want string // want: the amount sent, or the field's error
		wantRefusal bool
	}{
		{de, "1,500", `"amount":"1.500"`, false}, {de, "1500", `"amount":"1500"`, false}, {de, "1,5", `"amount":"1.5"`, false},
		{fr, "0,25", `"amount":"0.25"`, false}, {en, "1.500", `"amount":"1.500"`, false},
		{de, "1.500", mark, true}, {de, "1.500,000", mark, true}, {de, "1,500,000", mark, true}, {de, "1 500", mark, true},
		{de, "0005", mark, true}, {de, "-1", `"amount":"-1"`, false}, {de, "-1.5", mark, true}, {de, ",5", mark, true}, {de, "5,", mark, true},
	} {
		raw, fields, ok := Parse(s, url.Values{"f.fee.0.amount": {c.typed}}, c.w)
		switch {
		case c.wantRefusal && (ok || (c.w == de && fields[0].Error != c.want)):
			t.Errorf("%s %q: ok %v, %s, error %q", c.w.Lang(), c.typed, ok, raw, fields[0].Error)
		case !c.wantRefusal && (!ok || !strings.Contains(string(raw), c.want)):
			t.Errorf("%s %q: ok %v, %s, error %q; want %s", c.w.Lang(), c.typed, ok, raw, fields[0].Error, c.want)
		}
	}
}

// TestPrefillInARepeatedHour: terms whose time falls in the hour a zone's
// clocks repeat (01:30 on 1 Nov 2026 in New York is two moments) are
// prefilled so that the form sends them back as they are, a person who
// changes only another field is not refused for a time they did not
// choose ("not one moment in America/New_York"): such a row is written in
// UTC, which has one of each.
func TestPrefillInARepeatedHour(t *testing.T) {
	for _, in := range []string{
		`{"when":[{"start":"2026-11-01T05:30:00Z","end":"2026-11-01T06:30:00Z"},{"start":"2026-11-02T15:00:00Z","end":"2026-11-02T16:00:00Z"}],"qty":2,"ok":true,"place":"office"}`,
		`{"when":[{"start":"2026-11-01T06:15:00Z","end":"2026-11-01T06:45:00Z"}],"qty":2,"ok":true,"place":"office"}`,
	} {
		prefillRoundTrip(t, in)
	}
	s := schema(t)
	terms, _ := s.ParseTerms([]byte(`{"when":[{"start":"2026-11-01T05:30:00Z","end":"2026-11-01T06:30:00Z"},{"start":"2026-11-02T15:00:00Z","end":"2026-11-02T16:00:00Z"}],"qty":2,"ok":true,"place":"office"}`))
	ny, _ := time.LoadLocation("America/New_York")
	rows := Prefill(s, terms.Values, ny, locale.English())[0].Rows
	if rows[0].Zone != "UTC" || rows[0].Start != "2026-11-01T05:30" || rows[1].Zone != "America/New_York" || rows[1].Start != "2026-11-02T10:00" {
		t.Fatalf("rows: %+v", rows[:2])
	}
}

// TestRefusalMarksTheRowAtFault: a refusal of a repeated field's value
// names and marks the row that held it, though an empty row above it was
// not sent (negotiation's "when[1]" is then the form's third row), and no
// other row; a refusal of the whole field marks every row.
func TestRefusalMarksTheRowAtFault(t *testing.T) {
	s := schema(t)
	form := url.Values{
		"f.when.0.start": {""}, "f.when.0.end": {""}, "f.when.0.zone": {"UTC"},
		"f.when.1.start": {"2026-12-03T09:00"}, "f.when.1.end": {"2026-12-03T09:30"}, "f.when.1.zone": {"UTC"},
		"f.when.2.start": {"2026-12-03T11:00"}, "f.when.2.end": {"2026-12-03T10:00"}, "f.when.2.zone": {"UTC"},
		"f.qty.0.v": {"1"}, "f.place.0.v": {"video"},
	}
	en := locale.English()
	raw, fields, ok := Parse(s, form, en)
	if !ok {
		t.Fatalf("not ok: %+v", fields)
	}
	_, err := s.ParseTerms(raw)
	e, isErr := err.(*negotiation.Error)
	if !isErr || !strings.HasPrefix(e.Message, "when[1]") {
		t.Fatalf("%s: %v", raw, err)
	}
	wrong := func(f Field) []bool {
		out := make([]bool, len(f.Rows))
		for i, r := range f.Rows {
			out[i] = r.Wrong
		}
		return out
	}
	for _, words := range []negotiation.Words{e.Words, {}} { // with the catalog's words, and by its path alone
		_, fields, _ := Parse(s, form, en)
		if !Attach(fields, e.Message, words, en) || fields[0].Error != "When (3): end must be after start" {
			t.Fatalf("words %q: %q", words.Key, fields[0].Error)
		}
		if got := wrong(fields[0]); len(got) != 3 || got[0] || got[1] || !got[2] {
			t.Fatalf("words %q: rows marked %v, want only the third", words.Key, got)
		}
	}
	// A rule of the field as a whole marks each of its rows.
	_, fields, _ = Parse(s, form, en)
	if !Attach(fields, "when: at most 10 values", negotiation.Words{}, en) {
		t.Fatal("not attached")
	}
	if got := wrong(fields[0]); len(got) != 3 || !got[0] || !got[1] || !got[2] {
		t.Fatalf("rows marked %v, want all", got)
	}
	// A row the form itself cannot read is the one marked.
	form["f.when.1.end"] = []string{""}
	_, fields, _ = Parse(s, form, en)
	if got := wrong(fields[0]); fields[0].Error != "When (2): give both a start and an end" || got[0] || !got[1] || got[2] {
		t.Fatalf("%q, rows marked %v", fields[0].Error, got)
	}
}

// TestGrowAddsARowAsSent: asking for one more row keeps every value as
// typed, adds an empty row after the last (a moment's in the zone of the
// row above), drops the errors (nothing was sent) and opens the form; a
// field that is not repeated, or holds negotiation.MaxRepeated rows
// already, does not grow.
func TestGrowAddsARowAsSent(t *testing.T) {
	s := schema(t)
	w := locale.NewPrinter("en")
	form := url.Values{"f.when.0.start": {"2026-12-03T10:00"}, "f.when.0.end": {"2026-12-03T10:30"}, "f.when.0.zone": {"Asia/Tokyo"},
		"f.qty.0.v": {"x"}, "f.place.0.v": {"video"}}
	_, fields, ok := Parse(s, form, w)
	if ok {
		t.Fatal("a bad quantity was read")
	}
	if Grow(fields, "qty") || Grow(fields, "nothing") {
		t.Fatal("a field that is not repeated grew")
	}
	if !Grow(fields, "when") {
		t.Fatal("the repeated field did not grow")
	}
	for _, f := range fields {
		if f.Error != "" {
			t.Errorf("%s still says %q", f.Name, f.Error)
		}
		switch f.Name {
		case "when":
			if len(f.Rows) != 2 || !f.Grown || f.Rows[0].Start != "2026-12-03T10:00" || f.Rows[1] != (Row{Index: 1, Zone: "Asia/Tokyo", Added: true}) {
				t.Errorf("when: %+v", f)
			}
		case "qty":
			if f.Rows[0].Value != "x" || f.Rows[0].Wrong || f.Grown {
				t.Errorf("qty: %+v", f)
			}
		}
	}
	full := Field{Repeated: true, Rows: make([]Row, negotiation.MaxRepeated)}
	if full.CanGrow() {
		t.Error("a field with the most rows may grow")
	}
}

// TestAmountHintFollowsTheCurrency: a person who writes an amount the form
// cannot read is shown how to write one the terms take: for a currency
// without decimals (JPY) a whole amount, not "like 1500,50", which the
// terms' rule refuses next ("JPY has no decimals"). A German writes 1.500
// for fifteen hundred yen.
func TestAmountHintFollowsTheCurrency(t *testing.T) {
	s, _, err := negotiation.ParseSchema([]byte(`{"fee":{"type":"money","label":"Fee","currency":"JPY"},"tip":{"type":"money","label":"Tip","optional":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	de, fr := locale.NewPrinter("de"), locale.NewPrinter("fr")
	for _, c := range []struct {
		w           *locale.Printer
		form        url.Values
		field, want string
	}{
		{de, url.Values{"f.fee.0.amount": {"1.500"}}, "fee", "Fee: Betrag in ganzen Einheiten und ohne Tausendertrennzeichen schreiben, wie 1500"},
		{fr, url.Values{"f.fee.0.amount": {"1 500"}}, "fee", "Fee : écrivez le montant en unités entières et sans séparateur de milliers, comme 1500"},
		{de, url.Values{"f.fee.0.amount": {"1500"}, "f.tip.0.amount": {"1.500"}, "f.tip.0.currency": {"KRW"}}, "tip", "Tip: Betrag in ganzen Einheiten und ohne Tausendertrennzeichen schreiben, wie 1500"},
		{de, url.Values{"f.fee.0.amount": {"1500"}, "f.tip.0.amount": {"1.500"}, "f.tip.0.currency": {"EUR"}}, "tip", "Tip: Betrag mit Dezimalkomma und ohne Tausendertrennzeichen schreiben, wie 1500,50"},
		{de, url.Values{"f.fee.0.amount": {"1500"}, "f.tip.0.amount": {"1.500"}, "f.tip.0.currency": {"jpy"}}, "tip", "Tip: Betrag mit Dezimalkomma und ohne Tausendertrennzeichen schreiben, wie 1500,50"},
	} {
		_, fields, ok := Parse(s, c.form, c.w)
		var got string
		for _, f := range fields {
			if f.Name == c.field {
				got = f.Error
			}
		}
		if ok || got != c.want {
			t.Errorf("%s %v: ok %v, error %q; want %q", c.w.Lang(), c.form, ok, got, c.want)
		}
	}
}

// TestParseRefusesSmallClockChanges: a change of a zone's clocks by
// seconds or minutes (local mean time giving way to a standard offset)
// skips or repeats wall clocks as an hour's change does, and they are
// refused the same way: New York's clocks went back 3m58s at noon on 18
// Nov 1883 (12:02 was two moments; one was taken), Amsterdam's forward
// 28s on 1 Jul 1937 (00:00:10 was none; it was moved to 00:00:38).
func TestParseRefusesSmallClockChanges(t *testing.T) {
	for _, c := range []struct{ start, zone, want string }{
		{"1883-11-18T12:02", "America/New_York", "When (1): start: 1883-11-18T12:02 is not one moment in America/New_York (the clocks change that day): choose another time"},
		{"1937-07-01T00:00:10", "Europe/Amsterdam", "When (1): start: 1937-07-01T00:00:10 is not one moment in Europe/Amsterdam (the clocks change that day): choose another time"},
	} {
		form := url.Values{"f.when.0.start": {c.start}, "f.when.0.end": {"1937-07-02T00:00"}, "f.when.0.zone": {c.zone},
			"f.qty.0.v": {"3"}, "f.place.0.v": {"video"}}
		raw, fields, ok := Parse(schema(t), form, locale.English())
		if ok || fields[0].Error != c.want {
			t.Errorf("%s in %s: ok %v, %s, error %q\nwant %q", c.start, c.zone, ok, raw, fields[0].Error, c.want)
		}
	}
	for _, c := range []struct{ start, zone, want string }{
		{"1883-11-18T12:04", "America/New_York", `"start":"1883-11-18T12:04:00-05:00"`}, {"1937-07-01T00:00:28", "Europe/Amsterdam", `"start":"1937-07-01T00:00:28+01:20"`},
	} {
		form := url.Values{"f.when.0.start": {c.start}, "f.when.0.end": {"1937-07-02T00:00"}, "f.when.0.zone": {c.zone},
			"f.qty.0.v": {"3"}, "f.place.0.v": {"video"}}
		if raw, fields, ok := Parse(schema(t), form, locale.English()); !ok || !strings.Contains(string(raw), c.want) {
			t.Errorf("%s in %s: ok %v, %s, %q; want %s", c.start, c.zone, ok, raw, fields[0].Error, c.want)
		}
	}
}

// TestParseNearANewYearPastTzdata: a time near a new year after tzdata's
// last listed change (its zones' rule then, Berlin's DST) is read; the
// fuzzer found parseLocal never returning on it, once it walked the
// zone's periods by ZoneBounds, whose end there came before the time.
func TestParseNearANewYearPastTzdata(t *testing.T) {
	form := url.Values{"f.when.0.start": {"2072-12-31T23:30"}, "f.when.0.end": {"2073-01-01T0:00"}, "f.when.0.zone": {"Europe/Berlin"},
		"f.qty.0.v": {"3"}, "f.place.0.v": {"video"}}
	raw, fields, ok := Parse(schema(t), form, locale.English())
	if !ok || !strings.Contains(string(raw), `"start":"2072-12-31T23:30:00+01:00","end":"2073-01-01T00:00:00+01:00"`) && !strings.Contains(string(raw), `"end":"2073-01-01T00:00:00+01:00","start":"2072-12-31T23:30:00+01:00"`) {
		t.Errorf("ok %v, %s, %q", ok, raw, fields[0].Error)
	}
}
