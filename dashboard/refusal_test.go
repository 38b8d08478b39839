package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestRefusalsInTheirLanguage: a person who counters with bad terms reads
// every broken rule beside its field, the field named by the label the
// inviter wrote and the rule in the person's language; the form's own
// refusals, the service's and the live pages' are in it too, and the
// audit log names its details in words.
func TestRefusalsInTheirLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "20"), Title: "Fee"})
	if err != nil {
		t.Fatal(err)
	}
	counter := func(fee, place, start, end, zone string) url.Values {
		return url.Values{"verdict": {"counter"}, "f.meeting_time.0.start": {start}, "f.meeting_time.0.end": {end},
			"f.meeting_time.0.zone": {zone}, "f.place.0.v": {place}, "f.fee.0.amount": {fee}}
	}
	beside := func(field, text string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)id="field-` + field + `".*class="field-error" id="err-` + field + `" role="alert">` + regexp.QuoteMeta(text) + `<`)
	}
	for _, c := range []struct {
		lang string
		form url.Values
		want map[string]string // field: its error as the page writes it
	}{
		{"de", counter("12,345", "boat", "2026-12-09T11:00", "2026-12-09T11:30", "Europe/Berlin"), map[string]string{
			"fee":   "Fee: EUR hat höchstens 2 Nachkommastellen",
			"place": "Where: &#34;boat&#34; ist keiner dieser Werte: office, video",
		}},
		{"de", counter("-3", "video", "2026-12-09T11:30", "2026-12-09T11:00", "Europe/Berlin"), map[string]string{
			"fee":          "Fee: der Betrag darf nicht negativ sein",
			"meeting_time": "Meeting time: das Ende muss nach dem Beginn liegen",
		}},
		{"de", counter("", "", "2026-12-09T11:00", "", "Europe/Berlin"), map[string]string{
			"place":        "Where: erforderlich",
			"meeting_time": "Meeting time: geben Sie Beginn und Ende an",
		}},
		{"fr", counter("1,5", "boat", "2026-12-09T11:00", "2026-12-09T11:30", "Europe/Paris"), map[string]string{
			"place": "Where : &#34;boat&#34; n&#39;est pas une de ces valeurs : office, video",
		}},
		// A French reader's decimal mark is a comma (the card writes 20,00):
		// a point, a thousands separator to them, is refused by the form.
		{"fr", counter("1.5.0", "video", "2026-12-09T11:00", "2026-12-09T11:30", "Europe/Paris"), map[string]string{
			"fee": "Fee : écrivez le montant avec une virgule décimale et sans séparateur de milliers, comme 1500,50",
		}},
		{"fr", counter("7", "video", "2026-12-09T11:00", "2026-12-09T11:30", "Mars/Olympus"), map[string]string{
			"meeting_time": "Meeting time : fuseau horaire : &#34;Mars/Olympus&#34; n&#39;est pas un fuseau IANA comme Europe/Paris",
		}},
		{"fr", counter("7", "video", "2026-12-09T11:30", "2026-12-09T11:30", "Europe/Paris"), map[string]string{
			"meeting_time": "Meeting time : la fin doit être après le début",
		}},
	} {
		pat := b.client(nil)
		pat.lang = c.lang
		pat.get("/i/" + open.InviteCode)
		st, _, body := pat.post("/i/"+open.InviteCode, c.form)
		if st != http.StatusBadRequest {
			t.Fatalf("%s %v: %d", c.lang, c.form, st)
		}
		for field, text := range c.want {
			if !beside(field, text).MatchString(body) {
				t.Errorf("%s %v: no %q beside %s in\n%s", c.lang, c.form, text, field, errorsOf(body))
			}
		}
		if strings.Contains(body, `class="error" role="alert"`) {
			t.Errorf("%s: a rule that has its field was shown above the form too:\n%s", c.lang, errorsOf(body))
		}
	}

	// The service's refusal, on the signup form; the form's own, on the
	// room page; the live pages' sign-in; the audit log's detail names.
	alice := b.client(&b.alice)
	alice.lang = "de"
	alice.get("/signup")
	if st, _, body := alice.post("/signup", url.Values{"name": {"Beta"}, "slug": {"-x"}}); st != http.StatusBadRequest ||
		!strings.Contains(body, "Adresse: muss 3–40 Zeichen aus a–z, 0–9 und &#39;-&#39; lang sein") {
		t.Errorf("a bad slug in German: %d\n%s", st, errorsOf(body))
	}
	// In English, the address is called by its label, not "slug"; a bad
	// name and a bad address are both said at once.
	alice.lang = "en"
	if st, _, body := alice.post("/signup", url.Values{"name": {""}, "slug": {"A_b"}}); st != http.StatusBadRequest ||
		!strings.Contains(body, "name: must be 1–80 characters") ||
		!strings.Contains(body, "address: must be 3–40 characters of a–z, 0–9 and &#39;-&#39;, starting and ending with a letter or digit (got &#34;A_b&#34;)") ||
		strings.Contains(body, "slug:") {
		t.Errorf("no name and a bad address in English: %d\n%s", st, errorsOf(body))
	}
	alice.lang = "fr"
	if st, _, body := alice.post("/rooms/1/decide", url.Values{"answer": {"maybe"}}); !strings.Contains(body, "réponse : doit être confirmer ou refuser") {
		t.Errorf("a bad answer in French: %d\n%s", st, errorsOf(body))
	}
	stranger := b.client(nil)
	stranger.lang = "fr"
	stranger.get("/")
	if st, _, body := stranger.get("/events"); st != http.StatusUnauthorized || !strings.Contains(body, "Connectez-vous d&#39;abord.") {
		t.Errorf("the live list, signed out, in French: %d\n%s", st, errorsOf(body))
	}
	// An error page speaks the person's setting, over their browser's.
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	alice.lang = "de"
	if st, _, body := alice.get("/accounts/nosuch/settings"); st != http.StatusNotFound || !strings.Contains(body, "compte : vous n&#39;êtes pas membre de &#34;nosuch&#34;") {
		t.Errorf("an account that is not theirs, in their French: %d\n%s", st, errorsOf(body))
	}
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.RenameAccount(b.ctx, b.alice.ID, "alpha", "Alpha Works"); err != nil {
		t.Fatal(err)
	}
	alice.lang = "de"
	if _, _, body := alice.get("/accounts/alpha/settings"); !strings.Contains(body, "von: Alpha Studio; zu: Alpha Works;") {
		t.Errorf("the audit log's details in German:\n%s", body)
	}
}

// errorsOf is a page's error lines, for a failure's message.
func errorsOf(body string) string {
	return strings.Join(regexp.MustCompile(`role="alert"[^>]*>[^<]*`).FindAllString(body, -1), "\n")
}
