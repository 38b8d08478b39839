package locale

import "testing"

// TestCountsInEachLanguage: a count takes its language's CLDR plural form
// (English and German: one for 1 only; French: one for 0 and 1; Spanish:
// one for 1; Japanese: no plural), and the words around it agree with
// that form ("en unos 1 minuto" is no Spanish).
func TestCountsInEachLanguage(t *testing.T) {
	counts := []int{0, 1, 2, 5, 21, 22}
	for _, c := range []struct {
		lang string
		key  Key
		want []string
	}{
		{"en", "until.minutes", []string{"in about 0 minutes", "in about 1 minute", "in about 2 minutes", "in about 5 minutes", "in about 21 minutes", "in about 22 minutes"}},
		{"de", "until.hours", []string{"in etwa 0 Stunden", "in etwa 1 Stunde", "in etwa 2 Stunden", "in etwa 5 Stunden", "in etwa 21 Stunden", "in etwa 22 Stunden"}},
		{"fr", "until.days", []string{"dans environ 0 jour", "dans environ 1 jour", "dans environ 2 jours", "dans environ 5 jours", "dans environ 21 jours", "dans environ 22 jours"}},
		{"es", "until.minutes", []string{"en unos 0 minutos", "en aproximadamente 1 minuto", "en unos 2 minutos", "en unos 5 minutos", "en unos 21 minutos", "en unos 22 minutos"}},
		{"es", "until.hours", []string{"en aproximadamente 0 horas", "en aproximadamente 1 hora", "en aproximadamente 2 horas", "en aproximadamente 5 horas", "en aproximadamente 21 horas", "en aproximadamente 22 horas"}},
		{"ja", "left.days", []string{"残り0日", "残り1日", "残り2日", "残り5日", "残り21日", "残り22日"}},
		{"fr", "rule.too_long", []string{"au plus 0 caractère", "au plus 1 caractère", "au plus 2 caractères", "au plus 5 caractères", "au plus 21 caractères", "au plus 22 caractères"}},
	} {
		p := NewPrinter(c.lang)
		for i, n := range counts {
			if got := p.T(c.key, n); got != c.want[i] {
				t.Errorf("%s %s %d: got %q, want %q", c.lang, c.key, n, got, c.want[i])
			}
		}
	}
}
