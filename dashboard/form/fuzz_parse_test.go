package form

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

// wallMoments is every instant whose wall clock in loc is wall (a time
// read as if in UTC), to the nanosecond: the oracle of parseLocal, found
// another way, by looking at loc's offset every five minutes in the day
// and a half either side of it and trying each.
func wallMoments(wall time.Time, loc *time.Location) []time.Time {
	const full = "2006-01-02T15:04:05.999999999"
	seen := map[int]bool{}
	var out []time.Time
	for at := wall.Add(-36 * time.Hour); !at.After(wall.Add(36 * time.Hour)); at = at.Add(5 * time.Minute) {
		_, off := at.In(loc).Zone()
		if seen[off] {
			continue
		}
		seen[off] = true
		if u := wall.Add(-time.Duration(off) * time.Second); u.In(loc).Format(full) == wall.Format(full) {
			out = append(out, u)
		}
	}
	return out
}

// FuzzParseLocal: a datetime-local value read in a zone is the one
// instant whose wall clock there is the value, to the nanosecond, or a
// refusal: a wall clock the zone skips (no instant) or repeats (two) is
// refused as not one moment, whatever the size of the change (an hour, a
// day when a zone crossed the date line, a few minutes or seconds when
// local mean time gave way to a standard offset), and never moved.
//
//	go test ./dashboard/form -run XXX -fuzz FuzzParseLocal -fuzztime 5m -parallel 1
func FuzzParseLocal(f *testing.F) {
	for _, c := range []struct{ s, zone string }{
		{"2026-12-03T10:00", "Europe/Paris"}, {"2026-03-29T02:30", "Europe/Berlin"}, {"2026-10-25T02:30", "Europe/Berlin"},
		{"2026-10-26T02:30:00", "Europe/Berlin"}, {"2026-11-01T01:30", "America/New_York"}, {"2026-12-03T09:00:30", "UTC"},
		{"2026-12-03T09:30:00.25", "America/New_York"}, {"2026-04-05T01:45", "Australia/Lord_Howe"}, {"2026-10-04T02:15", "Australia/Lord_Howe"},
		{"1890-01-01T00:00", "Europe/Berlin"}, {"1893-04-01T00:03", "Europe/Berlin"}, {"2011-12-30T12:00", "Pacific/Apia"},
		{"1883-11-18T12:02", "America/New_York"}, {"1937-07-01T00:00:10", "Europe/Amsterdam"}, {"1867-10-18T12:00", "America/Sitka"},
		{"2026-12-03T10:00:60", "UTC"}, {"2026-02-30T10:00", "UTC"}, {"9999-12-31T23:59:59.999999999", "Pacific/Kiritimati"},
		{"0000-01-01T00:00", "America/Los_Angeles"}, {"2026-12-03T10:00:00,5", "Asia/Kolkata"},
	} {
		f.Add(c.s, c.zone)
	}
	f.Fuzz(func(t *testing.T, s, zone string) {
		loc, err := tz.Load(zone)
		if err != nil {
			return
		}
		wall, werr := time.Parse(localLayout, s)
		if werr != nil {
			wall, werr = time.Parse(localLayout+":05", s)
		}
		got, err := parseLocal(s, loc)
		if werr != nil {
			if err == nil {
				t.Fatalf("%q in %s: read as %v, no datetime-local value", s, zone, got)
			}
			return
		}
		want := wallMoments(wall, loc)
		switch {
		case err == nil && (len(want) != 1 || !got.Equal(want[0])):
			t.Fatalf("%q in %s: read as %v; the instants of that wall clock are %v", s, zone, got.UTC(), want)
		case err != nil && !errors.Is(err, errNotOneMoment):
			t.Fatalf("%q in %s: refused as %v, a datetime-local value", s, zone, err)
		case err != nil && len(want) == 1:
			t.Fatalf("%q in %s: refused (%v), the one instant %v", s, zone, err, want[0].UTC())
		}
	})
}

// goWords are pieces of Go's own error strings, never a person's words.
var goWords = regexp.MustCompile(`strconv|invalid syntax|parsing time|cannot parse|out of range|%!|<nil>|unknown time zone|json:|can.t convert`)

// faultsSayWhere checks that every refused field says its place (its
// label, as a person reads it) and its rule in a person's words (what
// was typed, sent, which a message may quote, aside), and marks a row; ok
// means no field is at fault.
func faultsSayWhere(t *testing.T, fields []Field, ok bool, w *locale.Printer, what string, sent ...string) {
	t.Helper()
	faults := 0
	for _, f := range fields {
		if f.Error == "" {
			continue
		}
		faults++
		label := w.Label(f.Label, f.Shorthand)
		goish := goWords.MatchString(f.Error)
		for _, typed := range sent {
			goish = goish && !goWords.MatchString(typed) // quoted back, maybe
		}
		if !strings.HasPrefix(f.Error, label) || len(f.Error) <= len(label)+2 || goish {
			t.Fatalf("%s (%s): %s: %q names not the field and its rule", what, w.Lang(), f.Name, f.Error)
		}
		wrong := false
		for _, r := range f.Rows {
			wrong = wrong || r.Wrong
		}
		if !wrong {
			t.Fatalf("%s (%s): %s: %q marks no row", what, w.Lang(), f.Name, f.Error)
		}
	}
	if ok != (faults == 0) {
		t.Fatalf("%s (%s): ok %v with %d fields at fault", what, w.Lang(), ok, faults)
	}
}

// FuzzParseAmount: an amount typed into a money field is read the same in
// every language that reads it at all: what one language's reader types
// ("1.234,5" in German, "1,234.5" in English) is either refused beside
// the field, in the reader's words, or the very amount any other language
// that takes the same text reads from it; a language of decimal commas
// never takes a point, a thousands separator or a letter.
//
//	go test ./dashboard/form -run XXX -fuzz FuzzParseAmount -fuzztime 5m -parallel 1
func FuzzParseAmount(f *testing.F) {
	for _, c := range []struct{ typed, currency string }{
		{"1,500", "BHD"}, {"1500", "EUR"}, {"1,5", "EUR"}, {"0,25", "EUR"}, {"1.500", "BHD"}, {"1.500,000", "BHD"},
		{"1,500,000", "EUR"}, {"1 500", "EUR"}, {"0005", "EUR"}, {"-1", "EUR"}, {"-1.5", "EUR"}, {",5", "EUR"}, {"5,", "EUR"},
		{"1.234,5", "EUR"}, {"1,234.5", "USD"}, {"1500,50", "JPY"}, {"1e3", "EUR"}, {"--5", "EUR"}, {"١٢", "EUR"}, {"1\u202f500", "EUR"},
		{"999999999999999999,99", "USD"}, {"1234567890123456789", "JPY"}, {"+5", "EUR"}, {"", "EUR"}, {"5", ""},
	} {
		f.Add(c.typed, c.currency)
	}
	s, _, err := negotiation.ParseSchema([]byte(`{"fee":{"type":"money","label":"Fee"}}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, typed, currency string) {
		form := url.Values{"f.fee.0.amount": {typed}, "f.fee.0.currency": {currency}}
		read := map[string]string{} // language: the amount read
		for _, lang := range fuzzLangs {
			w := locale.NewPrinter(lang)
			raw, fields, ok := Parse(s, form, w)
			faultsSayWhere(t, fields, ok, w, typed, typed, currency)
			if !ok {
				continue
			}
			terms, err := s.ParseTerms(raw)
			if err != nil {
				var e *negotiation.Error
				if !errors.As(err, &e) || !Attach(fields, e.Message, e.Words, w) {
					t.Fatalf("%q %s (%s): %s refused as %v, beside no field", typed, currency, lang, raw, err)
				}
				faultsSayWhere(t, fields, false, w, typed, typed, currency)
				continue
			}
			v, _ := terms.Values("fee")
			read[lang] = v[0].Amount.String()
			if w.AmountInput(v[0].Amount.String()) != typed && !strings.ContainsAny(typed, "+0") {
				// A plain amount reads back as typed.
				digits, _ := negotiation.MinorDigits(currency)
				if back := w.AmountInput(v[0].Amount.StringFixed(int32(digits))); back != typed && strings.TrimRight(back, "0,.") != strings.TrimRight(typed, "0,.") {
					t.Fatalf("%q %s (%s): read as %s, written %q", typed, currency, lang, v[0].Amount, back)
				}
			}
			if w.AmountInput(".") != "." && strings.ContainsAny(typed, ".") {
				t.Fatalf("%q %s (%s): a point read as %s by a reader of decimal commas", typed, currency, lang, v[0].Amount)
			}
		}
		for lang, a := range read {
			for other, b := range read {
				if a != b {
					t.Fatalf("%q %s: %s in %s, %s in %s", typed, currency, a, lang, b, other)
				}
			}
		}
	})
}

// FuzzParseForm: whatever a browser (or anyone) posts for the form's
// controls, Parse never panics, and every field it refuses names the
// field, as the reader knows it, and the rule, in the reader's words;
// terms it reads are JSON that negotiation either takes or refuses with a
// fault Attach puts beside a field.
//
//	go test ./dashboard/form -run XXX -fuzz FuzzParseForm -fuzztime 5m -parallel 1
func FuzzParseForm(f *testing.F) {
	for i, c := range [][9]string{
		{"2026-12-03T10:00", "2026-12-03T10:30", "Europe/Paris", "3", "yes", "video", "12,50", "USD", "hi"},
		{"2026-12-03T10:00", "", "UTC", "three", "", "", "2", "", ""},
		{"2026-03-29T02:30", "2026-03-29T04:00", "Europe/Berlin", "0005", "no", "office", "1.500", "BHD", ""},
		{"2026-12-03T10:30", "2026-12-03T10:00", "Europe/Nowhere", "+5", "maybe", "café", "-1", "JPY", "<b>"},
		{"2026-12-03T10:00:00.5", "2026-12-04T10:00", "Etc/GMT+5", "-9223372036854775808", "yes", "office", "1500,50", "JPY", " "},
	} {
		for lang := range uint8(len(fuzzLangs)) {
			f.Add(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], uint8(i)+lang)
		}
	}
	f.Fuzz(func(t *testing.T, start, end, zone, qty, yes, place, amount, currency, note string, lang uint8) {
		s := schema(t)
		w := locale.NewPrinter(fuzzLangs[int(lang)%len(fuzzLangs)])
		form := url.Values{"f.when.0.start": {start}, "f.when.0.end": {end}, "f.when.0.zone": {zone}, "f.when.1.start": {end},
			"f.when.1.end": {start}, "f.when.1.zone": {zone}, "f.qty.0.v": {qty}, "f.ok.0.v": {yes}, "f.place.0.v": {place},
			"f.fee.0.amount": {amount}, "f.tip.0.amount": {amount}, "f.tip.0.currency": {currency}, "f.note.0.v": {note}, "f.day.0.v": {start}}
		what := strings.Join([]string{start, end, zone, qty, yes, place, amount, currency, note}, "|")
		raw, fields, ok := Parse(s, form, w)
		faultsSayWhere(t, fields, ok, w, what, start, end, zone, qty, yes, place, amount, currency, note)
		if !ok {
			return
		}
		if _, err := s.ParseTerms(raw); err != nil {
			var e *negotiation.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s (%s): %s: %v", what, w.Lang(), raw, err)
			}
			faults := e.Faults
			if len(faults) == 0 {
				faults = []negotiation.Fault{{Message: e.Message, Words: e.Words}}
			}
			for _, fault := range faults {
				if !Attach(fields, fault.Message, fault.Words, w) {
					t.Fatalf("%s (%s): %s: %q beside no field", what, w.Lang(), raw, fault.Message)
				}
			}
			faultsSayWhere(t, fields, false, w, what, start, end, zone, qty, yes, place, amount, currency, note)
		}
	})
}
