package locale

import (
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestLimit: a reader's own limits in their language, each kind of bound
// on each type: moments in the reader's zone with its IANA name, days and
// yes/no in their words (a moment's and a day's bounds as before/after),
// amounts in their separators, numbers and enum values as declared.
func TestLimit(t *testing.T) {
	schema, _, err := negotiation.ParseSchema([]byte(`{"when":{"type":"timerange","label":"When"},"day":{"type":"date","label":"Day"},` +
		`"qty":{"type":"int","label":"Qty"},"fee":{"type":"money","label":"Fee","currency":"EUR"},` +
		`"place":{"type":"enum","label":"Place","values":["office","video","café"]},"remote":{"type":"bool","label":"Remote"}}`))
	if err != nil {
		t.Fatal(err)
	}
	limits, err := schema.ParseLimits([]byte(`{"when":{"min":"2026-12-01T09:00:00+01:00"},"day":{"min":"2026-12-05","max":"2026-12-06"},` +
		`"qty":{"min":2,"max":10},"fee":{"min":{"amount":"5","currency":"EUR"}},"place":{"one_of":["office","café"]},"remote":{"equals":false}}`))
	if err != nil {
		t.Fatal(err)
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	want := map[string][]string{
		"en": {"not before Tue 1 Dec 2026, 17:00 (Asia/Tokyo)", "not before Sat 5 Dec 2026; not after Sun 6 Dec 2026",
			"at least 2; at most 10", "at least EUR\u00a05.00", "one of: office, café", "must be no"},
		"de": {"nicht vor Di., 1. Dez. 2026, 17:00 (Asia/Tokyo)", "nicht vor Sa., 5. Dez. 2026; nicht nach So., 6. Dez. 2026",
			"mindestens 2; höchstens 10", "mindestens 5,00\u00a0EUR", "einer von: office, café", "muss „nein“ sein"},
		"fr": {"pas avant mar. 1 déc. 2026, 17:00 (Asia/Tokyo)", "pas avant sam. 5 déc. 2026; pas après dim. 6 déc. 2026",
			"au moins 2; au plus 10", "au moins 5,00\u00a0EUR", "l'une des valeurs : office, café", "doit être « non »"},
		"es": {"no antes de mar, 1 dic 2026, 17:00 (Asia/Tokyo)", "no antes de sáb, 5 dic 2026; no después de dom, 6 dic 2026",
			"como mínimo 2; como máximo 10", "como mínimo 5,00\u00a0EUR", "uno de: office, café", "debe ser «no»"},
		"ja": {"2026年12月1日(火) 17:00 (Asia/Tokyo)以降", "2026年12月5日(土)以降; 2026年12月6日(日)まで",
			"2以上; 10以下", "EUR\u00a05.00以上", "次のいずれか：office, café", "「いいえ」であること"},
	}
	for lang, lines := range want {
		p := NewPrinter(lang)
		got := limits.List()
		if len(got) != len(lines) {
			t.Fatalf("%d limits, want %d", len(got), len(lines))
		}
		for i, lim := range got {
			if s := p.Limit(lim, tokyo); s != lines[i] {
				t.Errorf("%s %s: got %q, want %q", lang, lim.Field.Name, s, lines[i])
			}
		}
	}
}
