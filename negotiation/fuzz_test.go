package negotiation

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// seeds adds every JSON value found under key in the vector files to f.
func seeds(f *testing.F, file string, pick func(m map[string]json.RawMessage) []json.RawMessage) {
	b, err := os.ReadFile(filepath.Join("..", "vectors", file))
	if err != nil {
		f.Fatal(err)
	}
	var doc struct {
		Cases []map[string]json.RawMessage `json:"cases"`
		Parse []map[string]json.RawMessage `json:"parse"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		f.Fatal(err)
	}
	for _, c := range append(doc.Cases, doc.Parse...) {
		for _, v := range pick(c) {
			if len(v) > 0 {
				f.Add([]byte(v))
			}
		}
	}
}

func field(name string) func(map[string]json.RawMessage) []json.RawMessage {
	return func(m map[string]json.RawMessage) []json.RawMessage { return []json.RawMessage{m[name]} }
}

func FuzzParseSchema(f *testing.F) {
	seeds(f, "schemas.json", field("schema"))
	f.Add([]byte(`{"a":{"type":"enum","label":"\ud83d\ude00","values":["x","y"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseSchema(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not a protocol error: %v", err)
			}
			return
		}
		again, _, err := ParseSchema(s.Canonical())
		if err != nil || string(again.Canonical()) != string(s.Canonical()) {
			t.Fatalf("canonical schema does not reparse to itself: %v", err)
		}
	})
}

var fuzzSchema = []byte(`{"topic":{"type":"string","label":"Topic","optional":true},"qty":{"type":"int","label":"Qty","optional":true},"ok":{"type":"bool","label":"OK","optional":true},"day":{"type":"date","label":"Day","optional":true},"slots":{"type":"timerange","label":"Slots","repeated":true,"optional":true},"price":{"type":"money","label":"Price","optional":true},"place":{"type":"enum","label":"Where","values":["office","video"],"optional":true}}`)

func FuzzParseTerms(f *testing.F) {
	seeds(f, "terms.json", field("terms"))
	seeds(f, "hash.json", field("terms"))
	f.Add([]byte(`{"price":{"amount":"1.50","currency":"EUR"},"slots":[{"start":"2026-12-03T10:00:00.5+14:00","end":"2026-12-03T10:00:01-12:00"}]}`))
	s, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsTree(t, s, data)
		terms, err := s.ParseTerms(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not a protocol error: %v", err)
			}
			return
		}
		// Normalization is idempotent and the hash is stable.
		again, err := s.ParseTerms(terms.Canonical())
		if err != nil || again.Hash() != terms.Hash() || string(again.Canonical()) != string(terms.Canonical()) {
			t.Fatalf("canonical terms do not reparse to themselves: %v\n%s", err, terms.Canonical())
		}
		if !json.Valid(terms.Canonical()) {
			t.Fatalf("canonical form is not JSON: %s", terms.Canonical())
		}
	})
}

func FuzzParseLimits(f *testing.F) {
	seeds(f, "limits.json", field("limits"))
	f.Add([]byte(`{"qty":{"min":1,"max":2},"price":{"max":{"amount":"3","currency":"EUR"}},"place":{"one_of":["video"]},"ok":{"equals":true}}`))
	s, _, err := ParseSchema(fuzzSchema)
	if err != nil {
		f.Fatal(err)
	}
	terms, err := s.ParseTerms([]byte(`{"qty":5,"price":{"amount":"2.50","currency":"EUR"},"place":"office","ok":false,"day":"2026-01-02","slots":[{"start":"2026-12-03T10:00:00Z","end":"2026-12-03T11:00:00Z"}]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := s.ParseLimits(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("not a protocol error: %v", err)
			}
			return
		}
		_ = l.CheckOwn(terms)
		_ = OutsideLimits(s, l, s, terms)
		a := NoDealPossible(s, l, s, l)
		if len(a) > 0 {
			t.Fatalf("one party's limits cannot rule out a deal with itself: %v", a)
		}
	})
}

// The hand readers of moments and dates and the writer of amounts are held
// to what they replace: time.Parse and decimal's StringFixed.

func FuzzMoment(f *testing.F) {
	for _, s := range []string{
		"2026-12-03T10:00:00+02:00", "2026-12-03T10:00:00Z", "2026-12-03T10:00:00.5Z", "2026-12-03T10:00:00.123456789-12:59",
		"0000-01-01T00:00:00Z", "0001-01-01T00:00:00+00:01", "0001-01-01T00:00:00-00:01", "9999-12-31T23:59:59.999999999Z",
		"9999-12-31T23:59:59-00:01", "2024-02-29T12:00:00Z", "2025-02-29T12:00:00Z", "2000-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-04-31T00:00:00Z", "2026-04-00T00:00:00Z", "2026-12-03T24:00:00Z",
		"2026-12-03T23:60:00Z", "2026-12-03T23:59:60Z", "2026-12-03T10:00:00+24:00", "2026-12-03t10:00:00z", "2026-12-03T10:00:00.Z",
		"2026-12-03T10:00:00.1234567890Z", "2026-12-03T10:00:00", "2026-12-03T10:00:0aZ", "2026-12-03T10-00:00Z", "2026-12-03 10:00:00Z",
		"2026_12-03T10:00:00Z", "2026-12-03T10:00:00+02-00", "2026-12-03T10:00:00+0200",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := node{kind: kindString, s: s}
		got, err := parseMoment("p", ".s", &n)
		want, wantErr := momentByTimeParse(s)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || got != want {
			t.Fatalf("%q: %#v %v, time.Parse gives %#v %v", s, got, err, want, wantErr)
		}
	})
}

// momentByTimeParse is parseMoment as it was written with time.Parse, and
// with momentShape as it was written, against a pattern.
func momentByTimeParse(s string) (time.Time, error) {
	if !momentShapeByPattern(s) {
		if m := longFractionPattern.FindStringSubmatch(s); m != nil && momentShapeByPattern(m[1]+m[2]) {
			return time.Time{}, termsErr("p.s", "tm17_moment_fraction", "%s has more than 9 digits after the second's point (a moment is kept to the nanosecond)", Clip(s))
		}
		return time.Time{}, termsErr("p.s", "rule.moment_shape", "must be an RFC 3339 moment with an offset, like 2026-12-03T10:00:00+02:00")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if _, err := time.Parse(time.RFC3339Nano, s[:17]+"59"+s[19:]); err == nil && s[17:19] == "60" {
			return time.Time{}, termsErr("p.s", "tm17_moment_leap", "%s has a 60th second (a leap second), which is not taken: write :59 or the next minute", Clip(s))
		}
		return time.Time{}, termsErr("p.s", "rule.moment_unreal", "%s is not a real moment", Clip(s))
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, termsErr("p.s", "rule.moment_range", "%s is out of range (years 0001 to 9999 in UTC)", Clip(s))
	}
	return t.UTC(), nil
}

// longFractionPattern splits a moment with more than 9 digits of a second
// into its first 9 and what follows the rest.
var longFractionPattern = regexp.MustCompile(`^(.{19}\.[0-9]{9})[0-9]+(\D.*)?$`)

func momentShapeByPattern(s string) bool {
	const head = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(head)+1 {
		return false
	}
	for i := 0; i < len(head); i++ {
		if head[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != head[i] {
			return false
		}
	}
	rest := s[len(head):]
	if rest[0] == '.' {
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 1 || j > 10 {
			return false
		}
		rest = rest[j:]
	}
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && isDigits(rest[1:3]) && rest[3] == ':' && isDigits(rest[4:6]) &&
		rest[1:3] <= "23" && rest[4:6] <= "59"
}

func FuzzDate(f *testing.F) {
	for _, s := range []string{"2026-12-24", "0000-01-01", "9999-12-31", "2024-02-29", "2025-02-29", "1900-02-29", "2000-02-29",
		"2026-13-01", "2026-00-01", "2026-04-31", "2026-04-00", "2026-1x-01", "+026-01-01", "2026-1-011", "20261-01-1", "2026/12/24"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := node{kind: kindString, s: s}
		got, err := parseDate("p", &n)
		want, wantErr := time.Parse(time.DateOnly, s)
		switch {
		case len(s) != 10 || s[4] != '-' || s[7] != '-':
			if err == nil {
				t.Fatalf("%q: accepted without the shape of a date", s)
			}
		case (err == nil) != (wantErr == nil) || got != want:
			t.Fatalf("%q: %#v %v, time.Parse gives %#v %v", s, got, err, want, wantErr)
		}
	})
}

func FuzzAppendMoment(f *testing.F) {
	for _, sec := range []int64{0, -1, 1, unixYear1, unixYear1 - 1, unixYear10000 - 1, unixYear10000, 951782400, 4107542400, -62162035200} {
		for _, ns := range []int64{0, 1, 500000000, 123456789, 999999999, 100} {
			f.Add(sec, ns, int32(0))
		}
	}
	f.Add(int64(1796284800), int64(0), int32(7200))
	f.Fuzz(func(t *testing.T, sec, ns int64, offset int32) {
		// Mostly moments valid terms hold, some outside (written by AppendFormat).
		if span := int64(unixYear10000 - unixYear1); sec%7 != 0 {
			sec = unixYear1 + (sec%span+span)%span
		}
		m := time.Unix(sec, ns).UTC()
		if offset != 0 {
			m = m.In(time.FixedZone("", int(offset%86400)))
		}
		if got, want := string(appendMoment([]byte("x"), m)), "x"+m.Format(time.RFC3339Nano); got != want {
			t.Fatalf("%d.%09d %d: %s, AppendFormat gives %s", sec, ns, offset, got, want)
		}
	})
}

// FuzzParseAmount: an amount parseAmount accepts is the decimal
// RequireFromString makes of it, to the last field.
func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"0", "0.00", "1500", "1500.5", "0.05", "123456789012345678", "12345678901234567.8", "1234567890123456.78",
		"123456789012345678.9999", "007", "1.", ".5", "-1", "1e3", "1.2.3"} {
		f.Add(s, uint8(2))
		f.Add(s, uint8(4))
	}
	f.Fuzz(func(t *testing.T, s string, digits uint8) {
		n := node{kind: kindString, s: s}
		got, err := parseAmount("p", ".amount", &n, "EUR", int(digits%5))
		if err != nil {
			return
		}
		if want := decimal.RequireFromString(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v, RequireFromString gives %#v", s, got, want)
		}
	})
}

func FuzzAppendAmount(f *testing.F) {
	for _, s := range []string{"0", "1500", "1500.5", "0.05", "0.00", "7", "123456789012345678", "123456789012345678.9999",
		"1234567890123456789", "-1.5", "1e3", "1.23456", "0.0001", "99.999"} {
		for _, d := range []uint8{0, 2, 3, 4} {
			f.Add(s, d)
		}
	}
	f.Fuzz(func(t *testing.T, s string, digits uint8) {
		a, err := decimal.NewFromString(s)
		if err != nil || len(s) > 64 {
			return
		}
		d := int(digits % 6)
		got := string(appendAmount([]byte("x"), a, d))
		if want := "x" + a.StringFixed(int32(d)); got != want {
			t.Fatalf("%q with %d digits: %s, StringFixed gives %s", s, d, got, want)
		}
	})
}

// FuzzValidText holds validText's ASCII fast path to the rune-by-rune
// check it skips.
func FuzzValidText(f *testing.F) {
	for _, s := range []string{"", "plain", "tab\there", "line\nfeed", "cr\r", "\x00", "\x1f", "\x7f", "é", "\u0085", "\u009f",
		"a\u202eb", "\u2066", "\u2069x", "x\xff", "\xed\xa0\x80", "ok é \u2028", "é\t"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		want := utf8.ValidString(s)
		for _, r := range s {
			switch {
			case r == '\t' || r == '\n' || r == '\r':
				want = want && multiline
			case r < 0x20, r >= 0x7F && r <= 0x9F, r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
				want = false
			}
		}
		if got := validText(s, multiline); got != want {
			t.Fatalf("validText(%q, %v) = %v, want %v", s, multiline, got, want)
		}
	})
}
