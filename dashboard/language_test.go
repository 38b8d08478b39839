package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestLanguageOfAPage: a page speaks the person's setting, else their
// browser's Accept-Language, English at worst; a language Taasky has no
// words for is refused and the setting keeps its value.
func TestLanguageOfAPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stranger := b.client(nil)
	stranger.lang = "de-CH, en;q=0.5"
	_, _, body := stranger.get("/")
	for _, want := range []string{`<html lang="de">`, "<title>Taasky</title>", "Ihr Agent verhandelt. Sie stimmen zu.", "Zum Inhalt springen"} {
		if !strings.Contains(body, want) {
			t.Errorf("welcome in German lacks %q", want)
		}
	}
	stranger.lang = "ko"
	if _, _, body := stranger.get("/"); !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, "Your agent negotiates. You agree.") {
		t.Error("a language without words does not fall back to English")
	}

	alice := b.client(&b.alice)
	alice.lang = "ja"
	_, _, body = alice.get("/settings")
	if !strings.Contains(body, `<html lang="ja">`) || !strings.Contains(body, "<title>設定 · Taasky</title>") {
		t.Fatalf("settings in the browser's Japanese:\n%s", head(body))
	}
	st, _, body := alice.post("/settings/language", url.Values{"language": {"tlh"}})
	if st != http.StatusBadRequest || !strings.Contains(body, `言語：en, de, fr, es, ja のいずれかにしてください（受け取った値：&#34;tlh&#34;）`) {
		t.Fatalf("an unknown language: %d\n%s", st, body)
	}
	if u, _ := b.accounts.UserByID(b.ctx, b.alice.ID); u.Language != "" {
		t.Fatalf("a refused language was saved: %q", u.Language)
	}
	if st, loc, _ := alice.post("/settings/language", url.Values{"language": {"fr"}}); st != http.StatusSeeOther || loc != "/settings?done=language" {
		t.Fatalf("French: %d %q", st, loc)
	}
	_, _, body = alice.get("/settings?done=language")
	for _, want := range []string{`<html lang="fr">`, "Votre langue a été enregistrée.", `<option value="fr" lang="fr" selected>Français</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("settings in the chosen French lack %q", want)
		}
	}
	alice.post("/settings/language", url.Values{"language": {""}})
	if _, _, body := alice.get("/"); !strings.Contains(body, `<html lang="ja">`) {
		t.Error("no setting: the browser's language again")
	}
}

// TestTimeZonePickerAndTell: the settings' zone is a <select> of IANA
// zones grouped by region (no script needed); a browser tells its zone
// once by a form post kept in an HttpOnly cookie; an unknown zone is
// refused and changes nothing. Until a person's browser tells its zone,
// their invitation is in the inviter's human's zone, named, with UTC
// beside each moment (UTC alone when that is the inviter's).
func TestTimeZonePickerAndTell(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	_, _, body := alice.get("/settings")
	for _, want := range []string{`<select name="time_zone" id="tz" data-zone-select>`, `<optgroup label="Europe">`,
		`<option>Europe/Berlin</option>`, `<option>Asia/Tokyo</option>`, `<optgroup label="Universal"><option selected>UTC</option></optgroup>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the zone picker lacks %q", want)
		}
	}
	if st, _, body := alice.post("/settings/timezone", url.Values{"time_zone": {"Europe/Atlantis"}}); st != http.StatusBadRequest || !strings.Contains(body, "time zone: must be an IANA time zone name") {
		t.Fatalf("an unknown zone: %d", st)
	}
	if u, _ := b.accounts.UserByID(b.ctx, b.alice.ID); u.TimeZone != "UTC" {
		t.Fatalf("a refused zone was saved: %q", u.TimeZone)
	}

	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Intro call", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	stranger := b.client(nil)
	stranger.lang = "es"
	_, _, body = stranger.get("/i/" + open.InviteCode)
	for _, want := range []string{`<form method="post" action="/zone" hidden data-zone-tell>`, "lun, 7 dic 2026, 8:00–8:30 (UTC)", "Alpha Studio le invita"} {
		if !strings.Contains(body, want) {
			t.Errorf("the invitation, zone not told yet, inviter in UTC, lacks %q", want)
		}
	}
	if strings.Contains(body, " UTC<") || strings.Contains(body, "–8:30 UTC") {
		t.Error("the invitation, inviter in UTC, writes UTC twice")
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	_, _, body = stranger.get("/i/" + open.InviteCode)
	for _, want := range []string{`<form method="post" action="/zone" hidden data-zone-tell>`, `data-zone=""`,
		"lun, 7 dic 2026, 9:00–9:30 (UTC&#43;01:00) · 8:00–8:30 UTC", "<option selected>UTC</option>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the invitation, zone not told yet, inviter in Berlin, lacks %q", want)
		}
	}
	if strings.Contains(body, "(Europe/Berlin") || strings.Contains(body, "<option selected>Europe/Berlin") {
		t.Error("the invitation shows a stranger the inviter's zone by name (only its offset is theirs to see)")
	}
	if deadline := regexp.MustCompile(`<time datetime="[^"]+">[^<]*\(UTC&#43;01:00\) · [^<]*UTC</time>`); !deadline.MatchString(body) {
		t.Errorf("the deadline, zone not told yet, is not at Berlin's offset and in UTC:\n%s", body)
	}
	if st, _, body := stranger.post("/zone", url.Values{"time_zone": {"Mars/Olympus"}}); st != http.StatusBadRequest || !strings.Contains(body, `time_zone: &#34;Mars/Olympus&#34; no es un nombre de zona horaria IANA`) {
		t.Fatalf("an unknown zone told: %d", st)
	}
	if _, ok := stranger.cookies[zoneCookie]; ok {
		t.Fatal("a refused zone was kept")
	}
	if st, _, _ := stranger.post("/zone", url.Values{"time_zone": {"Asia/Tokyo"}}); st != http.StatusNoContent {
		t.Fatalf("a zone told: %d", st)
	}
	kept := false
	for _, c := range stranger.header.Values("Set-Cookie") {
		kept = kept || strings.HasPrefix(c, zoneCookie+"=Asia/Tokyo;") && strings.Contains(c, "HttpOnly")
	}
	if !kept {
		t.Fatalf("the zone's cookie: %q", stranger.header.Values("Set-Cookie"))
	}
	_, _, body = stranger.get("/i/" + open.InviteCode)
	if strings.Contains(body, "data-zone-tell") || !strings.Contains(body, "lun, 7 dic 2026, 17:00–17:30 (Asia/Tokyo, UTC&#43;09:00)") || strings.Contains(body, "–8:30 UTC") {
		t.Errorf("the invitation in the zone told:\n%s", body)
	}

	// A person who answers without telling a zone: their seat is at the
	// inviter's offset and in UTC too, until their browser tells theirs.
	silent := b.client(nil)
	_, _, body = silent.get("/i/" + open.InviteCode)
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("no pick on the invitation:\n%s", body)
	}
	st, loc, _ := silent.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}})
	if st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	_, _, body = silent.get(loc)
	if !strings.Contains(body, "Mon 7 Dec 2026, 09:00–09:30 (UTC&#43;01:00) · 08:00–08:30 UTC") ||
		!regexp.MustCompile(`<time datetime="[^"]+">[^<]*\(UTC&#43;01:00\) · [^<]*UTC</time>`).MatchString(body) {
		t.Errorf("the seat, zone not told yet:\n%s", body)
	}
	silent.post("/zone", url.Values{"time_zone": {"America/New_York"}})
	if _, _, body = silent.get(loc); !strings.Contains(body, "Mon 7 Dec 2026, 03:00–03:30 (America/New_York, UTC-05:00)") || strings.Contains(body, "–8:30 UTC") {
		t.Errorf("the seat in the zone told:\n%s", body)
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600]
	}
	return s
}

// TestPagesSayWhatAPersonNeeds: the invitation's options are told apart
// by their buttons, the subject_hash is folded away, and the one-tap page
// says who the other side is and when the deadline is.
func TestPagesSayWhatAPersonNeeds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Intro call", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
		json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	_, _, body := b.client(nil).get("/i/" + open.InviteCode)
	for _, want := range []string{`aria-label="Pick Option 1 of 2">Pick this one</button>`, `aria-label="Pick Option 2 of 2">Pick this one</button>`,
		`<details class="hash"><summary>Fingerprint of these terms</summary>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the invitation lacks %q", want)
		}
	}
	if strings.Contains(body, `<p class="hash">`) {
		t.Error("the subject_hash is printed in the open")
	}

	tb, _, token := b.askedToApprove(t, "fee talk", "", meeting(4, 9, "video", "20"))
	r, err := b.rooms.Read(b.ctx, b.beta, tb)
	if err != nil {
		t.Fatal(err)
	}
	deadline, _ := time.Parse(time.RFC3339, r.Deadline)
	_, _, body = b.client(nil).get("/c/" + token)
	want := "With Alpha Studio · Deadline: <time datetime=\"" + deadline.UTC().Format(time.RFC3339) + "\">" + deadline.UTC().Format("Mon 2 Jan 2006, 15:04") + " (UTC)</time>"
	if !strings.Contains(body, want) {
		t.Errorf("the one-tap page lacks %q:\n%s", want, body)
	}
}

// TestRefuseInvitations: the link of an invitation mail shows the address
// and a button and changes nothing; the button (or a mail client's
// one-click POST, with no cookie and no token) refuses further
// invitations; a forged link is refused.
func TestRefuseInvitations(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := strings.TrimPrefix(b.notify.RefuseInvitationsURL("Pat@Example.test"), b.base)
	pat := b.client(nil)
	pat.lang = "fr"
	st, _, body := pat.get(path)
	if st != 200 || !strings.Contains(body, "Refuser les invitations adressées à pat@example.test ?") || !strings.Contains(body, `<form method="post" action="`+path+`">`) {
		t.Fatalf("GET: %d\n%s", st, body)
	}
	if st, _, body := pat.get(path + "x"); st != http.StatusNotFound || !strings.Contains(body, "Ce lien n&#39;est pas valide") {
		t.Fatalf("a forged link: %d", st)
	}
	oneClick := b.client(nil)
	if st, _, body := oneClick.do(http.MethodPost, path, url.Values{"List-Unsubscribe": {"One-Click"}}); st != 200 || !strings.Contains(body, "data-refused-invitations") {
		t.Fatalf("one-click POST: %d\n%s", st, body)
	}
}

// TestAccountPagesInTheirLanguage: an account's pages, their notices and
// the dashboard's own refusals speak the reader's language.
func TestAccountPagesInTheirLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	alice.lang = "de"
	for page, wants := range map[string][]string{
		"/accounts/alpha/members?done=role":     {"<title>Mitglieder von Alpha Studio · Taasky</title>", "Die Rolle wurde geändert.", "Jemanden einladen", `<span class="sr-only">Aktionen</span>`},
		"/accounts/alpha/settings?done=renamed": {"<title>Einstellungen von Alpha Studio · Taasky</title>", "Das Konto wurde umbenannt.", "Prüfprotokoll", "Export herunterladen", "<td>Agent erstellt</td>"},
		"/accounts/alpha/webhooks?done=deleted": {"<title>Webhooks von Alpha Studio · Taasky</title>", "Der Endpunkt wurde gelöscht.", "Noch kein Endpunkt.", `<a href="https://www.standardwebhooks.com/">Standard Webhooks</a>`},
		"/accounts/alpha/start":                 {"Alpha Studio ist bereit", "Sie sind Inhaber", `<a href="/">Ihre Räume</a>`},
	} {
		st, _, body := alice.get(page)
		for _, want := range wants {
			if st != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("%s: %d, lacks %q", page, st, want)
			}
		}
	}
	// A person without an account picks an option: the room page names
	// them in the reader's words.
	slots := []json.RawMessage{json.RawMessage(`{"start":"2026-12-07T09:00:00Z","end":"2026-12-07T09:30:00Z"}`)}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: "Intro"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	_, _, body := pat.get("/i/" + open.InviteCode)
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("no option to pick:\n%s", body)
	}
	if st, _, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}}); st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	_, _, body = alice.get("/")
	room := regexp.MustCompile(`href="(/rooms/\d+)`).FindStringSubmatch(body)
	if room == nil {
		t.Fatalf("no room listed:\n%s", body)
	}
	if _, _, body := alice.get(room[1]); !strings.Contains(body, "mit einer Person, die im Browser antwortet") {
		t.Errorf("the room page does not name the person in German:\n%s", head(body))
	}

	alice.lang = "fr"
	if st, _, body := alice.post("/rooms/0/decide", url.Values{"answer": {"confirm"}}); st != http.StatusNotFound || !strings.Contains(body, "salle introuvable") {
		t.Errorf("a room that does not exist, in French: %d", st)
	}
}

// TestZoneChosenWithoutAScript: a person without an account chooses the
// zone of their invitation and their seat with a plain form (no script
// tells it), is sent back to the page, and reads it in their choice; they
// can change it again; a signed-in person has Settings and no picker; the
// way back is a path of this site only.
func TestZoneChosenWithoutAScript(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Intro call", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	invite := "/i/" + open.InviteCode
	person := b.client(nil)
	_, _, body := person.get(invite)
	for _, want := range []string{`<details class="zone-pick" data-zone-pick>`, `<form method="post" action="/zone" class="stack">`,
		`<input type="hidden" name="next" value="` + invite + `">`, `<select name="time_zone" id="zone-pick" data-zone-select>`, "Show them in this zone"} {
		if !strings.Contains(body, want) {
			t.Fatalf("the invitation offers no zone picker without a script: lacks %q", want)
		}
	}
	st, loc, _ := person.post("/zone", url.Values{"time_zone": {"Asia/Tokyo"}, "next": {invite}})
	if st != http.StatusSeeOther || loc != invite {
		t.Fatalf("a zone chosen on the invitation: %d to %q", st, loc)
	}
	_, _, body = person.get(invite)
	if !strings.Contains(body, "Mon 7 Dec 2026, 17:00–17:30 (Asia/Tokyo, UTC&#43;09:00)") || !strings.Contains(body, "<option selected>Asia/Tokyo</option>") {
		t.Errorf("the invitation after choosing Asia/Tokyo:\n%s", body)
	}
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("no pick on the invitation:\n%s", body)
	}
	st, seat, _ := person.post(invite, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}})
	if st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	seat, _, _ = strings.Cut(seat, "?")
	_, _, body = person.get(seat)
	if !strings.Contains(body, `<input type="hidden" name="next" value="`+seat+`">`) || !strings.Contains(body, "17:00–17:30 (Asia/Tokyo") {
		t.Fatalf("the seat offers no zone picker, or forgot the zone chosen:\n%s", body)
	}
	if st, loc, _ := person.post("/zone", url.Values{"time_zone": {"America/New_York"}, "next": {seat}}); st != http.StatusSeeOther || loc != seat {
		t.Fatalf("a zone chosen on the seat: %d to %q", st, loc)
	}
	if _, _, body = person.get(seat); !strings.Contains(body, "Mon 7 Dec 2026, 03:00–03:30 (America/New_York, UTC-05:00)") {
		t.Errorf("the seat after choosing America/New_York:\n%s", body)
	}
	if st, loc, _ := person.post("/zone", url.Values{"time_zone": {"UTC"}, "next": {"//example.com/x"}}); st != http.StatusSeeOther || loc != "/" {
		t.Errorf("a way back off the site: %d to %q", st, loc)
	}
	if _, _, body = b.client(&b.alice).get(invite); strings.Contains(body, "data-zone-pick") {
		t.Error("a signed-in person is offered the stranger's picker (theirs is in Settings)")
	}
}

// TestSeatCalendarInThePagesZone: the calendar entry a person downloads
// from their seat describes the agreed time as their page shows it: at
// the inviting human's offset with UTC beside while their browser has not
// told their zone (it was UTC alone), in their zone once told.
func TestSeatCalendarInThePagesZone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Intro call", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	person := b.client(nil)
	_, _, body := person.get("/i/" + open.InviteCode)
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("no pick on the invitation:\n%s", body)
	}
	st, seat, _ := person.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}})
	if st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	seat, _, _ = strings.Cut(seat, "?")
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, negotiation.VerdictApprove, v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, v.RoomID, cv.ID, cv.SubjectHash, true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("agree: %v %+v", err, d)
	}
	const guessed = "Mon 7 Dec 2026, 09:00–09:30 (UTC+01:00) · 08:00–08:30 UTC"
	if _, _, page := person.get(seat); !strings.Contains(page, strings.ReplaceAll(guessed, "+", "&#43;")) {
		t.Fatalf("the seat, zone not told, does not show %q:\n%s", guessed, page)
	}
	description := func() string {
		st, _, ics := person.get(seat + "/invite.ics")
		if st != http.StatusOK || !strings.Contains(ics, "DTSTART:20261207T080000Z\r\n") || !strings.Contains(ics, "DTEND:20261207T083000Z\r\n") {
			t.Fatalf("the calendar: %d\n%s", st, ics)
		}
		_, desc, _ := strings.Cut(strings.ReplaceAll(ics, "\r\n ", ""), "DESCRIPTION:")
		desc, _, _ = strings.Cut(desc, "\r\n")
		return strings.NewReplacer(`\n`, "\n", `\,`, ",", `\;`, ";", `\\`, `\`).Replace(desc)
	}
	if desc := description(); !strings.Contains(desc, guessed) {
		t.Errorf("the seat's calendar, zone not told, does not say %q as its page does:\n%s", guessed, desc)
	}
	person.post("/zone", url.Values{"time_zone": {"America/New_York"}})
	if desc := description(); !strings.Contains(desc, "Mon 7 Dec 2026, 03:00–03:30 (America/New_York, UTC-05:00)") || strings.Contains(desc, " UTC\n") {
		t.Errorf("the seat's calendar in the zone told:\n%s", desc)
	}
}

// TestCounterFormInAZonesOldOffset: a time a person types in their zone
// is sent as the moment it names, also where the zone's offset then had
// seconds (Berlin's local mean time until 1893 was UTC+00:53:28): it was
// written at +00:53, 28 seconds off, and the card then showed 10:00:28.
func TestCounterFormInAZonesOldOffset(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	person := b.client(nil)
	person.get("/i/" + open.InviteCode)
	counter := url.Values{"verdict": {"counter"}, "f.meeting_time.0.start": {"1890-06-01T10:00"}, "f.meeting_time.0.end": {"1890-06-01T10:30"},
		"f.meeting_time.0.zone": {"Europe/Berlin"}}
	if st, _, body := person.post("/i/"+open.InviteCode, counter); st != http.StatusSeeOther {
		t.Fatalf("counter: %d %s", st, body)
	}
	v, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(v.TermsOnTable.Options[0].Terms)
	if want := `{"meeting_time":{"end":"1890-06-01T09:36:32Z","start":"1890-06-01T09:06:32Z"}}`; string(got) != want {
		t.Errorf("10:00–10:30 in Berlin on 1 June 1890 reached the other side as %s, want %s", got, want)
	}
}
