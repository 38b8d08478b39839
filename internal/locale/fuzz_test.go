package locale

import (
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/taasky/taasky/negotiation"
)

var fuzzLangs = []string{"en", "de", "fr", "es", "ja"}

// canonical is an amount as terms hold it: digits, no leading zero, and
// a fraction after a point.
var canonical = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// readWritten reads an amount as p writes it (number) the way its reader
// does: every group separator left out, the decimal mark a point; false
// when the groups are not of three digits, the reader's grouping.
func readWritten(p *Printer, s string) (string, bool) {
	n := p.numbers
	whole, frac, hasMark := strings.Cut(s, n.decimal)
	groups := strings.Split(whole, n.group)
	for i, g := range groups {
		if !digitsOnly(g) || (i > 0 && len(g) != 3) || (i == 0 && len(groups) > 1 && len(g) > 3) {
			return "", false
		}
	}
	if len(groups) > 1 && len(whole)-len(n.group)*(len(groups)-1) < n.minGrouped {
		return "", false // grouped below the reader's minimum: not how it is written
	}
	out := strings.Join(groups, "")
	if hasMark {
		if !digitsOnly(frac) {
			return "", false
		}
		out += "." + frac
	}
	return out, true
}

// FuzzAmountRoundTrip: an amount as terms hold it, in every language, is
// written (Money) as its reader reads it back to the same amount, with
// the currency code held on the side the language puts it; and typed as
// the form prefills it (AmountInput), it is read (ReadAmount) as itself.
//
//	go test ./internal/locale -run XXX -fuzz FuzzAmountRoundTrip -fuzztime 5m -parallel 1
func FuzzAmountRoundTrip(f *testing.F) {
	for _, a := range []string{"1.5", "1500", "1234567.5", "0.001", "999999999999999999.99", "12.3456", "12500.00", "0", "1.500", "100000",
		"1000", "10000", "123456789012345678901234567890.123"} {
		f.Add(a, "EUR")
	}
	f.Add("1500", "JPY")
	f.Fuzz(func(t *testing.T, amount, currency string) {
		if !canonical.MatchString(amount) {
			return
		}
		for _, lang := range fuzzLangs {
			p := NewPrinter(lang)
			if back, ok := p.ReadAmount(p.AmountInput(amount)); !ok || back != amount {
				t.Fatalf("%s (%s): typed %q, read as %q, %v", amount, lang, p.AmountInput(amount), back, ok)
			}
			written := p.number(amount)
			if back, ok := readWritten(p, written); !ok || back != amount {
				t.Fatalf("%s (%s): written %q, read as %q, %v", amount, lang, written, back, ok)
			}
			money := p.Money(amount, currency)
			if want := currency + "\u00a0" + written; p.numbers.currencyFirst && money != want {
				t.Fatalf("%s %s (%s): %q, want %q", amount, currency, lang, money, want)
			} else if want := written + "\u00a0" + currency; !p.numbers.currencyFirst && money != want {
				t.Fatalf("%s %s (%s): %q, want %q", amount, currency, lang, money, want)
			}
		}
	})
}

// FuzzReadAmount: what a person types in an amount box is read, in a
// language of decimal commas, only when it is an amount written with that
// comma (and maybe a minus, for the terms' rule to refuse), as the very
// amount the comma says, never a point, a group separator, a letter or a
// digit of another script; in a language of decimal points it is left as
// typed, for the terms' rules.
//
//	go test ./internal/locale -run XXX -fuzz FuzzReadAmount -fuzztime 5m -parallel 1
func FuzzReadAmount(f *testing.F) {
	for _, s := range []string{"1,500", "1500", "1,5", "0,25", "1.500", "1.500,000", "1,500,000", "1 500", "0005", "-1", "-1.5", ",5", "5,",
		"1.234,5", "1e3", "--5", "-", "١٢", "1\u202f500", "+5", "", "0", "0,0", "-0,5", "1,2,3"} {
		f.Add(s)
	}
	plain := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)
	f.Fuzz(func(t *testing.T, typed string) {
		for _, lang := range fuzzLangs {
			p := NewPrinter(lang)
			got, ok := p.ReadAmount(typed)
			switch {
			case p.numbers.decimal == ".":
				if !ok || got != typed {
					t.Fatalf("%q (%s): %q, %v; want it as typed", typed, lang, got, ok)
				}
			case ok && (!plain.MatchString(got) || got != strings.Replace(typed, p.numbers.decimal, ".", 1)):
				t.Fatalf("%q (%s): read as %q", typed, lang, got)
			case !ok && got != "":
				t.Fatalf("%q (%s): refused, yet %q", typed, lang, got)
			case !ok && plain.MatchString(strings.Replace(typed, p.numbers.decimal, ".", 1)) && !strings.Contains(typed, "."):
				t.Fatalf("%q (%s): an amount with the reader's mark refused", typed, lang)
			}
			if ok && p.numbers.decimal != "." {
				if _, err := decimal.NewFromString(got); err != nil {
					t.Fatalf("%q (%s): %q is no decimal: %v", typed, lang, got, err)
				}
			}
		}
	})
}

// TestReadAmountLongInput: a long amount (a form field holds what anyone
// posts) is read or refused in memory in proportion to it, whatever it
// holds: 100 KB of digits, of minus signs, of commas. Memory, not time,
// so that the test does not depend on the machine.
func TestReadAmountLongInput(t *testing.T) {
	const n = 100 << 10
	for _, typed := range []string{strings.Repeat("9", n), strings.Repeat("-", n) + "5", strings.Repeat("-", n), strings.Repeat("9", n) + "," + strings.Repeat("9", n),
		strings.Repeat(",", n), strings.Repeat("-9", n/2)} {
		for _, lang := range fuzzLangs {
			p := NewPrinter(lang)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			p.ReadAmount(typed)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(16*len(typed)) {
				t.Errorf("%s, %.10q… (%d bytes): %d bytes allocated", lang, typed, len(typed), alloc)
			}
		}
	}
}

// FuzzMomentsTellApart: two moments a reader is shown alike in one zone
// are the same moment: Moment to the minute (so within a minute of each
// other), Range and Limit to the nanosecond, in every language, in a
// repeated hour (the offset is named), across a change of the clocks, in
// local mean time's offsets of seconds.
//
//	go test ./internal/locale -run XXX -fuzz FuzzMomentsTellApart -fuzztime 5m -parallel 1
func FuzzMomentsTellApart(f *testing.F) {
	seed := func(at string, d, length time.Duration, zone string) {
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			f.Fatal(err)
		}
		for lang := range uint8(len(fuzzLangs)) {
			f.Add(t.Unix(), int64(t.Nanosecond()), int64(d), int64(length), zone, lang)
		}
	}
	seed("2026-11-01T05:30:00Z", time.Hour, time.Hour, "America/New_York")
	seed("2026-10-25T00:30:00Z", time.Hour, 30*time.Minute, "Europe/Berlin")
	seed("2026-04-04T14:45:00Z", 30*time.Minute, time.Hour, "Australia/Lord_Howe")
	seed("1883-11-18T16:58:02Z", 3*time.Minute+58*time.Second, time.Minute, "America/New_York")
	seed("1890-01-01T00:00:00Z", 0, 24*time.Hour, "Europe/Berlin")
	seed("2026-12-07T09:00:00.5Z", time.Nanosecond, time.Second, "Etc/GMT+5")
	seed("2011-12-29T09:59:00Z", 24*time.Hour, 48*time.Hour, "Pacific/Apia")
	f.Fuzz(func(t *testing.T, sec, nsec, d, length int64, zone string, lang uint8) {
		loc, err := time.LoadLocation(zone)
		if err != nil || zone == "" || zone == "Local" {
			return
		}
		if sec < -62135596800+86400*2 || sec > 253402300799-86400*2 || length < 0 {
			return // years 1 to 9999, and a range's end after its start
		}
		p := NewPrinter(fuzzLangs[int(lang)%len(fuzzLangs)])
		t1 := time.Unix(sec, nsec%1e9)
		t2 := t1.Add(time.Duration(d))
		if t2.Year() < 1 || t2.Year() > 9999 || t2.Add(time.Duration(length)).Year() > 9999 {
			return
		}
		if m1, m2 := p.Moment(t1, loc), p.Moment(t2, loc); m1 == m2 && (t1.Sub(t2) >= time.Minute || t2.Sub(t1) >= time.Minute) {
			t.Fatalf("%v and %v in %s (%s): both %q", t1.UTC(), t2.UTC(), zone, p.Lang(), m1)
		}
		e1, e2 := t1.Add(time.Duration(length)), t2.Add(time.Duration(length))
		if r1, r2 := p.Range(t1, e1, loc), p.Range(t2, e2, loc); r1 == r2 && !t1.Equal(t2) {
			t.Fatalf("%v–%v and %v–%v in %s (%s): both %q", t1.UTC(), e1.UTC(), t2.UTC(), e2.UTC(), zone, p.Lang(), r1)
		}
		if r1, r2 := p.RangeWithUTC(t1, e1, loc), p.RangeWithUTC(t2, e2, loc); r1 == r2 && !t1.Equal(t2) {
			t.Fatalf("%v–%v and %v–%v in %s (%s), with UTC: both %q", t1.UTC(), e1.UTC(), t2.UTC(), e2.UTC(), zone, p.Lang(), r1)
		}
		when := negotiation.Field{Name: "when", Type: negotiation.TypeTimerange}
		l1 := p.Limit(negotiation.Limit{Field: when, Min: &negotiation.Value{Start: t1}}, loc)
		l2 := p.Limit(negotiation.Limit{Field: when, Min: &negotiation.Value{Start: t2}}, loc)
		if l1 == l2 && !t1.Equal(t2) {
			t.Fatalf("%v and %v in %s (%s): both limits %q", t1.UTC(), t2.UTC(), zone, p.Lang(), l1)
		}
	})
}

// FuzzNewPrinter: whatever a browser's Accept-Language or an identity
// provider's locale claim holds, NewPrinter gives one of the catalog's
// printers and never panics; a preference that is plainly one of its
// languages (its tag, maybe with a region, first) gets that language;
// and a printer's own tag gets that printer back.
//
//	go test ./internal/locale -run XXX -fuzz FuzzNewPrinter -fuzztime 5m -parallel 1
func FuzzNewPrinter(f *testing.F) {
	for _, s := range []string{"de-CH", "de_DE", "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "", "*", "ja-JP-u-ca-japanese", "es-419",
		"zz", "en;q=0", "x-klingon", "de;q=abc", strings.Repeat("a-", 100), "fr;q=0.5,de;q=0.6", "pt-BR", "gsw"} {
		f.Add(s)
	}
	langTag := regexp.MustCompile(`^(en|de|fr|es|ja)(-[A-Z]{2})?$`)
	f.Fuzz(func(t *testing.T, pref string) {
		p := NewPrinter(pref)
		known := false
		for _, q := range printers {
			known = known || p == q
		}
		if !known {
			t.Fatalf("%q: a printer not the catalog's", pref)
		}
		if m := langTag.FindStringSubmatch(pref); m != nil && p.Lang() != m[1] {
			t.Fatalf("%q: %s", pref, p.Lang())
		}
		if NewPrinter(p.Lang()) != p {
			t.Fatalf("%q: %s does not give itself back", pref, p.Lang())
		}
	})
}

// TestAcceptLanguageEntryByEntry: one entry of an Accept-Language value
// that x/text cannot read (an unknown language, a bad weight) or that has
// a region it does not know leaves the others as they were: the whole
// value was dropped and the reader got English (FuzzNewPrinter: "de-YA").
func TestAcceptLanguageEntryByEntry(t *testing.T) {
	for pref, want := range map[string]string{
		"de-YA": "de", "fr-CH, de-YA;q=0.5": "fr", "fr, zz-ZZ;q=0.1": "fr", "fr;q=0.9, en-US;q=abc": "fr", "zz, ja;q=0.2": "ja",
		"de;q=abc,ja;q=0.1": "ja", "de;q=0.5, ja": "ja", "es;q=0, fr;q=0.1": "fr", "xx-bogus": "en", "de-CH, fr;q=0.8": "de",
		// The weight's name, like the tags, in either case (RFC 9110 §12.4.2).
		"fr-FR;Q=0.5": "fr", "de;Q=0.1, ja;Q=0.5": "ja",
	} {
		if got := NewPrinter(pref).Lang(); got != want {
			t.Errorf("%q: %s, want %s", pref, got, want)
		}
	}
}
