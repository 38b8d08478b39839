package locale

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// catalogEntry is one key of a catalog file, with the format verbs its
// text (every plural form of it) uses.
type catalogEntry struct {
	key   string
	verbs []string
}

var verb = regexp.MustCompile(`%(?:\[\d+\])?[-+# 0-9]*(?:\[\d+\])?[a-zA-Z%]`)

// readCatalog parses a catalog file: its keys in order, and their verbs.
func readCatalog(t *testing.T, name string) []catalogEntry {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []catalogEntry
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		lit, ok := kv.Key.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		key, _ := strconv.Unquote(lit.Value)
		e := catalogEntry{key: key}
		ast.Inspect(kv.Value, func(n ast.Node) bool {
			if s, ok := n.(*ast.BasicLit); ok && s.Kind == token.STRING {
				text, _ := strconv.Unquote(s.Value)
				if text == "%d" || text == "one" || text == "other" {
					return true // plural.Selectf's selector and cases
				}
				e.verbs = append(e.verbs, verb.FindAllString(text, -1)...)
			}
			return true
		})
		slices.Sort(e.verbs)
		e.verbs = slices.Compact(e.verbs)
		out = append(out, e)
		return false
	})
	if len(out) < 100 {
		t.Fatalf("%s: read %d keys: the parse missed the catalog", name, len(out))
	}
	return out
}

// TestEveryCatalogHasEnglishKeys: each language's file has exactly the keys
// english.go has (a key missing is a page with a hole; a key English
// dropped is dead text), in english.go's order, so that a new key is
// translated in the same place in every file; and each text fills in the
// same values (verbs) as the English one.
func TestEveryCatalogHasEnglishKeys(t *testing.T) {
	english := readCatalog(t, "english.go")
	if len(languages) != len(catalogFiles) {
		t.Fatalf("%d languages, %d catalog files", len(languages), len(catalogFiles))
	}
	for _, name := range catalogFiles[1:] {
		other := readCatalog(t, name)
		have := map[string]catalogEntry{}
		for _, e := range other {
			have[e.key] = e
		}
		want := map[string]bool{}
		for _, e := range english {
			want[e.key] = true
			o, ok := have[e.key]
			if !ok {
				t.Errorf("%s lacks %q: translate english.go's text", name, e.key)
				continue
			}
			if !slices.Equal(o.verbs, e.verbs) {
				t.Errorf("%s %q fills in %v, English %v", name, e.key, o.verbs, e.verbs)
			}
		}
		for _, e := range other {
			if !want[e.key] {
				t.Errorf("%s has %q, which English no longer has", name, e.key)
			}
		}
		if t.Failed() {
			continue
		}
		for i := range english {
			if english[i].key != other[i].key {
				t.Errorf("%s: key %d is %q where english.go has %q: keep english.go's order", name, i, other[i].key, english[i].key)
				break
			}
		}
	}
}

// TestEveryLanguageWritesEveryKey: no text of any language prints blank
// or with Go's marks of a wrong verb, given values of the kinds English
// fills in.
func TestEveryLanguageWritesEveryKey(t *testing.T) {
	english := readCatalog(t, "english.go")
	position := regexp.MustCompile(`\[(\d+)\]`)
	for _, l := range languages {
		p := NewPrinter(l.Tag)
		if p.Lang() != l.Tag {
			t.Fatalf("NewPrinter(%q) speaks %q", l.Tag, p.Lang())
		}
		for _, e := range english {
			var args []any
			for _, v := range e.verbs {
				m := position.FindStringSubmatch(v)
				if m == nil {
					continue
				}
				i, _ := strconv.Atoi(m[1])
				for len(args) < i {
					args = append(args, nil)
				}
				if strings.HasSuffix(v, "d") {
					args[i-1] = 2
				} else {
					args[i-1] = "x"
				}
			}
			got := p.T(Key(e.key), args...)
			if strings.TrimSpace(got) == "" || strings.Contains(got, "%!") {
				t.Errorf("%s %q writes %q", l.Tag, e.key, got)
			}
		}
	}
}

// TestMomentsInEachLanguage: dates and times in each language's own
// patterns and names (CLDR), the zone always named.
func TestMomentsInEachLanguage(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := time.Date(2026, 10, 26, 13, 0, 0, 0, time.UTC)
	for _, c := range []struct{ lang, moment, rng, day string }{
		{"en", "Mon 26 Oct 2026, 14:00 (Europe/Berlin)", "Mon 26 Oct 2026, 14:00–14:30 (Europe/Berlin, UTC+01:00)", "Mon 26 Oct 2026"},
		{"de", "Mo., 26. Okt. 2026, 14:00 (Europe/Berlin)", "Mo., 26. Okt. 2026, 14:00–14:30 (Europe/Berlin, UTC+01:00)", "Mo., 26. Okt. 2026"},
		{"fr", "lun. 26 oct. 2026, 14:00 (Europe/Berlin)", "lun. 26 oct. 2026, 14:00–14:30 (Europe/Berlin, UTC+01:00)", "lun. 26 oct. 2026"},
		{"es", "lun, 26 oct 2026, 14:00 (Europe/Berlin)", "lun, 26 oct 2026, 14:00–14:30 (Europe/Berlin, UTC+01:00)", "lun, 26 oct 2026"},
		{"ja", "2026年10月26日(月) 14:00 (Europe/Berlin)", "2026年10月26日(月) 14:00–14:30 (Europe/Berlin, UTC+01:00)", "2026年10月26日(月)"},
	} {
		p := NewPrinter(c.lang)
		for _, got := range [][2]string{
			{p.Moment(at, berlin), c.moment},
			{p.Range(at, at.Add(30*time.Minute), berlin), c.rng},
			{p.Day(time.Date(2026, 10, 26, 0, 0, 0, 0, time.UTC)), c.day},
		} {
			if got[0] != got[1] {
				t.Errorf("%s: got %q, want %q", c.lang, got[0], got[1])
			}
		}
	}
	f := negotiation.CardField{Type: negotiation.TypeBool, Values: []negotiation.Value{{Bool: true}}, Text: "yes"}
	if got := NewPrinter("ja").Value(f, nil); got != "はい" {
		t.Errorf("a yes in Japanese: %q", got)
	}
	f = negotiation.CardField{Type: negotiation.TypeEnum, Values: []negotiation.Value{{Text: "office"}}, Text: "office"}
	if got := NewPrinter("de").Value(f, nil); got != "office" {
		t.Errorf("an enum value is the party's words, never translated: %q", got)
	}
}

// TestMomentsWithUTCBeside: a reader shown a zone that is a guess (an
// invitee whose browser has not told theirs sees the inviter's) reads each
// moment in it, named, and in UTC beside it, with UTC's date when it is
// another day; a guess that is UTC is written once.
func TestMomentsWithUTCBeside(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	at := time.Date(2026, 12, 7, 8, 0, 0, 0, time.UTC)
	en, ja := NewPrinter("en"), NewPrinter("ja")
	for _, c := range [][2]string{
		{en.RangeWithUTC(at, at.Add(30*time.Minute), berlin), "Mon 7 Dec 2026, 09:00–09:30 (UTC+01:00) · 08:00–08:30 UTC"},
		{en.RangeWithUTC(at, at.Add(30*time.Minute), time.UTC), "Mon 7 Dec 2026, 08:00–08:30 (UTC)"},
		{en.RangeWithUTC(at, at.Add(30*time.Minute), nil), "Mon 7 Dec 2026, 08:00–08:30 (UTC)"},
		{en.RangeWithUTC(at.Add(-9*time.Hour), at.Add(-9*time.Hour+30*time.Minute), tokyo),
			"Mon 7 Dec 2026, 08:00–08:30 (UTC+09:00) · Sun 6 Dec 2026, 23:00–23:30 UTC"},
		{en.RangeWithUTC(at.Add(14*time.Hour+30*time.Minute), at.Add(15*time.Hour+30*time.Minute), berlin),
			"Mon 7 Dec 2026, 23:30 – Tue 8 Dec 2026, 00:30 (UTC+01:00) · 22:30–23:30 UTC"},
		{en.RangeWithUTC(at.Add(15*time.Hour+30*time.Minute), at.Add(16*time.Hour+30*time.Minute), tokyo),
			"Tue 8 Dec 2026, 08:30–09:30 (UTC+09:00) · Mon 7 Dec 2026, 23:30 – Tue 8 Dec 2026, 00:30 UTC"},
		{en.MomentWithUTC(at, berlin), "Mon 7 Dec 2026, 09:00 (UTC+01:00) · 08:00 UTC"},
		{en.MomentWithUTC(at.Add(-time.Hour), tokyo), "Mon 7 Dec 2026, 16:00 (UTC+09:00) · 07:00 UTC"},
		{en.MomentWithUTC(at, time.UTC), "Mon 7 Dec 2026, 08:00 (UTC)"},
		{en.MomentWithUTC(time.Time{}, berlin), ""},
		{ja.MomentWithUTC(at.Add(-9*time.Hour), tokyo), "2026年12月7日(月) 8:00 (UTC+09:00) · 2026年12月6日(日) 23:00 UTC"},
		{en.ValueWithUTC(negotiation.CardField{Type: negotiation.TypeTimerange, Values: []negotiation.Value{{Start: at, End: at.Add(time.Hour)}}}, berlin),
			"Mon 7 Dec 2026, 09:00–10:00 (UTC+01:00) · 08:00–09:00 UTC"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}

// TestSupportedRefusesWhatIsNot: a language Taasky has no words for is
// refused with the list of those it has.
func TestSupportedRefusesWhatIsNot(t *testing.T) {
	if got, err := Supported("DE"); err != nil || got != "de" {
		t.Errorf("Supported(DE) = %q, %v", got, err)
	}
	_, err := Supported("xx")
	if err == nil || err.Error() != `language: must be one of en, de, fr, es, ja (got "xx")` {
		t.Errorf("Supported(xx): %v", err)
	}
}
