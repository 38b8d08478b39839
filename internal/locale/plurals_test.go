package locale

import (
	"strings"
	"testing"
)

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

// TestCapsOfOneInEachLanguage: a cap that an operator may set to 1
// (INVITE_EMAIL_DAILY_CAP, SIGNUP_DAILY_CAP) is refused in the singular
// at 1: "1 invitations", "1 Einladungen", "1 personnes" were written
// (the agents' refusal had it right, the dashboard's did not).
func TestCapsOfOneInEachLanguage(t *testing.T) {
	for _, c := range []struct {
		lang string
		key  Key
		one  string
		many string
	}{
		{"en", "error.invite_cap", "has sent 1 invitation in", "has sent 2 invitations in"},
		{"de", "error.invite_cap", "1 Einladung gesendet", "2 Einladungen gesendet"},
		{"fr", "error.invite_cap", "a envoyé 1 invitation ces", "a envoyé 2 invitations ces"},
		{"es", "error.invite_cap", "envió 1 invitación en", "envió 2 invitaciones en"},
		{"en", "error.signup_cap", "created 1 account in", "created 2 accounts in"},
		{"de", "error.signup_cap", "1 Konto angelegt", "2 Konten angelegt"},
		{"fr", "error.signup_cap", "créé 1 compte ces", "créé 2 comptes ces"},
		{"es", "error.signup_cap", "creó 1 cuenta en", "creó 2 cuentas en"},
		{"en", "abuse7_person_email_cap", "had 1 person written to", "had 2 people written to"},
		{"de", "abuse7_person_email_cap", "1 Person anschreiben", "2 Personen anschreiben"},
		{"fr", "abuse7_person_email_cap", "écrire à 1 personne ces", "écrire à 2 personnes ces"},
		{"es", "abuse7_person_email_cap", "escribir a 1 persona en", "escribir a 2 personas en"},
	} {
		p := NewPrinter(c.lang)
		for n, want := range map[int]string{1: c.one, 2: c.many} {
			if got := p.T(c.key, n, "2026-12-08 10:00"); !strings.Contains(got, want) || !strings.Contains(got, "2026-12-08 10:00") {
				t.Errorf("%s %s %d: %q, want it to say %q", c.lang, c.key, n, got, want)
			}
		}
	}
}
