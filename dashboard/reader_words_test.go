package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// allInviteMails starts River workers that send both kinds of invitation
// mail (to join an account, and a room's invite_email) to an in-process
// SMTP server, and returns the server.
func (b *bundle) allInviteMails(t *testing.T) *notifytest.SMTPServer {
	t.Helper()
	smtp := notifytest.NewSMTPServer(t)
	mailer := notify.NewSMTP(notify.SMTPConfig{Host: smtp.Host, Port: smtp.Port})
	workers := river.NewWorkers()
	river.AddWorker(workers, &jobs.MemberInviteWorker{Invitations: b.accounts, Deliveries: b.notify, From: "Taasky <taasky@example.test>", Mailer: mailer})
	river.AddWorker(workers, &jobs.InviteWorker{Invitations: b.notify, From: "Taasky <taasky@example.test>", Mailer: mailer})
	rc, err := river.NewClient(riverpgxv5.New(b.pool), &river.Config{Workers: workers, FetchPollInterval: 200 * time.Millisecond,
		Queues: jobs.Queues(2, 2), FetchOnlyKnownKinds: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Start(b.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rc.Stop(b.ctx) })
	return smtp
}

// mailsTo waits for a mail to each address and returns them parsed, by
// address.
func mailsTo(t *testing.T, smtp *notifytest.SMTPServer, to ...string) map[string]*notify.Parsed {
	t.Helper()
	got := map[string]*notify.Parsed{}
	all := func() bool {
		for _, addr := range to {
			if got[addr] == nil {
				return false
			}
		}
		return true
	}
	for i := 0; i < 200 && !all(); i++ {
		for _, m := range smtp.Mails() {
			if p, err := notify.Parse(m.Data); err == nil {
				got[m.To[0]] = p
			}
		}
		if !all() {
			time.Sleep(50 * time.Millisecond)
		}
	}
	for _, addr := range to {
		if got[addr] == nil {
			t.Fatalf("no mail to %s", addr)
		}
	}
	return got
}

var slotsOfDec7 = []json.RawMessage{
	json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
	json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`),
}

// TestMailsInTheBrowsersLanguage: carol chose no language and reads
// Taasky in her browser's French; the member invitation she sends a
// stranger and the room invitation her agent emails go out in French
// too, the inviter's language being the one guess of the stranger's. She
// then picks German in Settings: her choice wins over her browser's.
func TestMailsInTheBrowsersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	carol := b.client(&b.carol)
	carol.lang = "fr-FR, fr;q=0.9, en;q=0.5"
	if st, _, body := carol.get("/accounts/gamma/members"); st != 200 || !strings.Contains(body, `<html lang="fr">`) {
		t.Fatalf("members page in French: %d\n%s", st, head(body))
	}
	if st, _, body := carol.post("/accounts/gamma/invitations", url.Values{"email": {"newcomer@example.test"}, "role": {"member"}}); st >= 400 {
		t.Fatalf("invite: %d\n%s", st, body)
	}
	agents, err := b.accounts.ListAgents(b.ctx, "gamma")
	if err != nil || len(agents) != 1 {
		t.Fatalf("gamma's agents: %v %v", agents, err)
	}
	if _, err := b.rooms.Open(b.ctx, agents[0], app.OpenInput{Slots: slotsOfDec7, Title: "Intro", InviteEmail: "pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	smtp := b.allInviteMails(t)
	mails := mailsTo(t, smtp, "newcomer@example.test", "pat@example.test")
	if m := mails["newcomer@example.test"]; !strings.Contains(m.Subject+m.Text, "vous invite à rejoindre") {
		t.Errorf("the member invitation, from carol reading French, is not in French:\n%s\n%s", m.Subject, m.Text)
	}
	if m := mails["pat@example.test"]; !strings.Contains(m.Subject, "vous invite à négocier") {
		t.Errorf("the room invitation, from carol reading French, is not in French:\n%s\n%s", m.Subject, m.Text)
	}

	// Her own choice, then, is what her mails speak, whatever her browser.
	if st, _, _ := carol.post("/settings/language", url.Values{"language": {"de"}}); st != http.StatusSeeOther {
		t.Fatalf("German: %d", st)
	}
	carol.get("/settings")
	if _, err := b.rooms.Open(b.ctx, agents[0], app.OpenInput{Slots: slotsOfDec7, Title: "Zwei", InviteEmail: "sam@example.test"}); err != nil {
		t.Fatal(err)
	}
	if m := mailsTo(t, smtp, "sam@example.test")["sam@example.test"]; strings.Contains(m.Subject, "vous invite") || !strings.Contains(m.Subject, "Zwei") {
		t.Errorf("the room invitation after carol chose German:\n%s", m.Subject)
	}
}

// TestJoinPageForAnotherAddress: a member invitation's link opened by
// someone signed in with another address says at once that it is for
// another address, with no Join button (pressing it was refused), and a
// POST is still refused and changes nothing.
func TestJoinPageForAnotherAddress(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", "dave@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	smtp := b.inviteMails(t)
	_, link := joinLinkIn(t, mailsOf(t, smtp, 1)[0])
	path := strings.TrimPrefix(link, b.base)
	bob := b.client(&b.bob)
	st, _, body := bob.get(path)
	if st != 200 || !strings.Contains(body, "this invitation is for another address than bob@example.test") {
		t.Fatalf("the join page to bob, for dave: %d\n%s", st, body)
	}
	if strings.Contains(body, "data-join") || strings.Contains(body, "Join Alpha Studio as") {
		t.Fatalf("the join page offers bob a button that is refused:\n%s", body)
	}
	if st, _, _ := bob.post(path, nil); st != http.StatusForbidden {
		t.Fatalf("bob joins anyway: %d", st)
	}
	if ms, err := b.accounts.Memberships(b.ctx, b.bob.ID); err != nil || len(ms) != 1 {
		t.Fatalf("bob's memberships: %v %v", ms, err)
	}
	// Signed out, the page still asks to sign in first.
	if _, _, body := b.client(nil).get(path); !strings.Contains(body, `href="/login?next=`+path) {
		t.Fatalf("the join page, signed out:\n%s", body)
	}
}

// mailsOf waits for n mails and returns them.
func mailsOf(t *testing.T, smtp *notifytest.SMTPServer, n int) []notifytest.Mail {
	t.Helper()
	for i := 0; i < 200 && len(smtp.Mails()) < n; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	m := smtp.Mails()
	if len(m) < n {
		t.Fatalf("%d mails, want %d", len(m), n)
	}
	return m
}

// TestStrangerPagesSpeakTheSignedIn: the pages anyone may open (an
// invitation, an unknown invitation's error, /verify) speak a signed-in
// person's own language and write times in their own zone, not their
// browser's language and the inviter's offset; their answer keeps that
// language and zone for their mails.
func TestStrangerPagesSpeakTheSignedIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "de"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "America/New_York"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.bob.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	open, err := b.rooms.Open(b.ctx, b.beta, app.OpenInput{Slots: slotsOfDec7, Title: "Intro call"})
	if err != nil {
		t.Fatal(err)
	}
	alice := b.client(&b.alice)
	alice.lang = "en"
	st, _, body := alice.get("/i/" + open.InviteCode)
	if st != 200 || !strings.Contains(body, `<html lang="de">`) || !strings.Contains(body, "(America/New_York, UTC-05:00)") {
		t.Fatalf("the invitation to alice (de, New York): %d\n%s", st, body)
	}
	if strings.Contains(body, "data-zone-tell") || strings.Contains(body, "UTC&#43;01:00") {
		t.Fatalf("the invitation to alice guesses her zone:\n%s", body)
	}
	if st, _, body := alice.get("/i/nosuchcode"); st != http.StatusNotFound || !strings.Contains(body, `<html lang="de">`) {
		t.Fatalf("an unknown invitation, to alice: %d\n%s", st, head(body))
	}
	if st, _, body := alice.get("/verify"); st != 200 || !strings.Contains(body, `<html lang="de">`) || !strings.Contains(body, `data-zone="America/New_York"`) {
		t.Fatalf("/verify, to alice: %d\n%s", st, head(body))
	}
	// Her answer's seat speaks German and New York's time to her mails.
	_, _, body = alice.get("/i/" + open.InviteCode)
	if hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body); hash == nil {
		t.Fatalf("no pick:\n%s", body)
	} else if st, loc, _ := alice.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}}); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/") {
		t.Fatalf("alice picks: %d %q", st, loc)
	}
	var lang, zone string
	if err := b.pool.QueryRow(b.ctx, `SELECT lang, coalesce(zone, '') FROM person_seats WHERE room_id = $1`, open.View.RoomID).Scan(&lang, &zone); err != nil ||
		lang != "de" || zone != "America/New_York" {
		t.Fatalf("the seat's language and zone: %q %q %v", lang, zone, err)
	}
	// Signed out, the same browser language reads English and the guess.
	stranger := b.client(nil)
	stranger.lang = "en"
	if _, _, body := stranger.get("/verify"); !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, `data-zone="UTC"`) {
		t.Fatalf("/verify, to a stranger:\n%s", head(body))
	}
}

// TestOwnInvitationInTheBrowser: the human of the agent that opened a
// room, signed in, cannot answer its invitation in the browser (their
// agents cannot join it either): the invitation says so instead of
// offering its options, and an answer posted anyway is refused with that
// message and changes nothing. Anyone else still can.
func TestOwnInvitationInTheBrowser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slotsOfDec7, Title: "Intro call", Preapprove: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _, body := b.client(nil).get("/i/" + open.InviteCode)
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("no pick for a stranger:\n%s", body)
	}
	const own = "this is your own invitation: you cannot answer it yourself; send its link to the person you invite"
	alice := b.client(&b.alice)
	st, _, body := alice.get("/i/" + open.InviteCode)
	if st != 200 || !strings.Contains(body, own) || strings.Contains(body, `name="subject_hash"`) || strings.Contains(body, `name="verdict"`) {
		t.Fatalf("the invitation to its own opener: %d\n%s", st, body)
	}
	alice.get("/settings") // a form's token: the invitation shows her none
	st, loc, body := alice.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}})
	if st != http.StatusConflict || !strings.Contains(body, own) {
		t.Fatalf("the opener answers their own invitation: %d %q\n%s", st, loc, body)
	}
	r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
	if err != nil || r.State != negotiation.StateDraft {
		t.Fatalf("the room after its opener's answer: %v %+v", err, r)
	}
	// Alice in German: the same, in her words.
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "de"); err != nil {
		t.Fatal(err)
	}
	if _, _, body := alice.get("/i/" + open.InviteCode); !strings.Contains(body, "das ist Ihre eigene Einladung") {
		t.Fatalf("the invitation to its own opener, in German:\n%s", body)
	}
	// Bob, signed in, answers it.
	bob := b.client(&b.bob)
	bob.get("/i/" + open.InviteCode)
	if st, loc, _ := bob.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}}); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/") {
		t.Fatalf("bob picks: %d %q", st, loc)
	}
	if r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken); err != nil || r.State != negotiation.StateAwaiting || r.Approvals.Them == nil {
		t.Fatalf("the room after bob's pick: %v %+v", err, r)
	}
}

// TestPagesThatDoNotExist: a path no route takes is the error page, 404,
// in the reader's language, with the pages' security headers; the other
// doors' paths keep their plain answer, and a path with a route for
// another method is still 405. The jobs' UI, to someone not an operator,
// is that page too.
func TestPagesThatDoNotExist(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stranger := b.client(nil)
	stranger.lang = "fr"
	st, _, body := stranger.get("/nope")
	if st != http.StatusNotFound || !strings.Contains(body, `<html lang="fr">`) || !strings.Contains(body, "Page introuvable") ||
		!strings.Contains(body, "Il n&#39;y a pas de page à cette adresse") || stranger.header.Get("Content-Security-Policy") == "" {
		t.Fatalf("an unknown page: %d %v\n%s", st, stranger.header, body)
	}
	alice := b.client(&b.alice)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "ja"); err != nil {
		t.Fatal(err)
	}
	if st, _, body := alice.do(http.MethodPost, "/rooms/1/nope", url.Values{}); st != http.StatusNotFound || !strings.Contains(body, `<html lang="ja">`) {
		t.Fatalf("an unknown page, signed in: %d\n%s", st, head(body))
	}
	// The jobs' UI, to someone not an operator, is no page either: the same one.
	if st, _, body := b.client(&b.bob).get("/admin/jobs/"); st != http.StatusNotFound || !strings.Contains(body, "There is no page at this address") {
		t.Fatalf("the jobs' UI, to bob: %d\n%s", st, head(body))
	}
	for _, p := range []string{"/mcp/alpha/nope", "/oauth/nope", "/.well-known/nope", "/api/nope", "/dev-oidc-nope/x"} {
		st, _, body := stranger.get(p)
		plain := strings.HasPrefix(body, "Cannot GET ")
		if p == "/dev-oidc-nope/x" {
			plain = !plain // not the issuer's path: a page
		}
		if st != http.StatusNotFound || !plain {
			t.Errorf("%s: %d %q", p, st, body)
		}
	}
	if st, _, _ := stranger.do(http.MethodPut, "/verify", nil); st != http.StatusMethodNotAllowed {
		t.Errorf("PUT /verify: %d", st)
	}
}

// TestSettingsFormsWithoutTheirAccount: Settings' key forms posted
// without their hidden account field are refused with one error that
// names it ("account: required", in the reader's language), and change
// nothing.
func TestSettingsFormsWithoutTheirAccount(t *testing.T) {
	t.Parallel()
	b := setup(t)
	keys, err := b.accounts.ListAgentKeys(b.ctx, "alpha", b.alpha.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("alpha's keys: %v %v", keys, err)
	}
	alice := b.client(&b.alice)
	alice.get("/settings")
	for _, path := range []string{"/settings/agents/" + formatID(b.alpha.ID) + "/keys", "/settings/keys/" + formatID(keys[0].ID) + "/revoke",
		"/settings/agents"} {
		st, _, body := alice.post(path, url.Values{"agent": {formatID(b.alpha.ID)}, "name": {"Another"}})
		if st != http.StatusBadRequest || !strings.Contains(body, `role="alert">account: required</p>`) || strings.Contains(body, "not a member") {
			t.Errorf("%s without its account: %d\n%s", path, st, body)
		}
	}
	if after, err := b.accounts.ListAgentKeys(b.ctx, "alpha", b.alpha.ID); err != nil || len(after) != 1 || after[0].RevokedAt != nil {
		t.Fatalf("alpha's keys after the refusals: %+v %v", after, err)
	}
	if agents, err := b.accounts.ListAgents(b.ctx, "alpha"); err != nil || len(agents) != 1 {
		t.Fatalf("alpha's agents after the refusals: %+v %v", agents, err)
	}
	alice.lang = "de"
	if _, _, body := alice.post("/settings/keys/"+formatID(keys[0].ID)+"/revoke", nil); !strings.Contains(body, "Konto: erforderlich") {
		t.Errorf("the refusal in German:\n%s", body)
	}
}
