package dashboard

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
	"github.com/taasky/taasky/oauthserver"
)

// sight is one page a person can reach, in one state: the request that
// shows it, by whom.
type sight struct {
	name   string
	cl     *client
	prime  string // a page to GET first, for the form's CSRF token
	method string
	path   string
	form   url.Values
	status int  // the status it answers (0: 200)
	drain  bool // first ask until the strangers' bucket is dry
	// reader: the page speaks this person's own language (a link sent
	// to them), which is set to the language rendered.
	reader *app.User
}

// TestNoEnglishLeftOnPages: every page a person can reach, in each state
// that changes its words, says nothing in German, French, Spanish or
// Japanese that its English render says too (its text, its <title>, and
// the attributes a browser shows or says: title, aria-label, placeholder,
// alt, a button's value, an optgroup's label), but for the data (names,
// titles, addresses, a party's labels and values, zone names) and the
// few words that are the same in that language (pageWordsAllowed, each
// with its reason); and writes its moments and amounts the reader's way.
func TestNoEnglishLeftOnPages(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.RateLimit = ratelimit.Limit{Rate: 0.0001, Burst: 1000} })
	sights := b.everySight(t)
	rendered, findings := 0, 0
	for _, s := range sights {
		english, ok := b.readsOf(t, s, "en")
		if !ok {
			continue
		}
		for _, lang := range []string{"de", "fr", "es", "ja"} {
			got, ok := b.readsOf(t, s, lang)
			if !ok {
				continue
			}
			rendered++
			for _, l := range notifytest.Leftovers(english, got, b.pageData(), pageWordsAllowed[lang]) {
				findings++
				t.Errorf("%s in %s says in English: %q", s.name, lang, l)
			}
			for _, p := range got {
				if notifytest.EnglishDates.MatchString(p) || englishAmount.MatchString(p) && lang != "ja" {
					findings++
					t.Errorf("%s in %s writes a moment or an amount the English way: %q", s.name, lang, p)
				}
			}
		}
	}
	t.Logf("%d pages × states × languages rendered (%d sights), %d findings", rendered, len(sights), findings)
}

// englishAmount is an amount with English marks: "1,500.00", "250.00".
var englishAmount = regexp.MustCompile(`\b\d{1,3}(,\d{3})*\.\d{2} EUR|EUR \d{1,3}(,\d{3})*\.\d{2}\b`)

// pageWordsAllowed are the pieces a page in that language writes as
// English does, each with why.
var pageWordsAllowed = map[string]map[string]string{
	"de": {"Status": "German's word", "Name": "German's word", "Export": "German's word", "Webhooks": "German's word (and the standard's)",
		"Client": "OAuth's word, which German keeps", "(optional)": "German's word"},
	"fr": {"Europe": "French's name of the region", "Notifications": "French's word", "Actions": "French's word", "Webhooks": "French's word (and the standard's)",
		"Export": "French's word", "Agents": "French's word", "Client": "French's word", "Pages": "French's word", "test": "French's word"},
	"es": {"Universal": "Spanish's word (the picker's group of UTC)", "Australia": "Spanish's name of the region", "Asia": "Spanish's name of the region",
		"Error": "Spanish's word", "Webhooks": "Spanish's word (and the standard's)",
		"Error: Webhooks de Alpha Studio · Taasky": "Spanish's words (a refused form's title)"},
	"ja": {"MCP URL": "the protocol's name and URL, as Japanese writes them"},
}

// Each language's own name, in the language picker of every language:
// a reader finds theirs by its name in their language.
func init() {
	for _, lang := range []string{"de", "fr", "es", "ja"} {
		for _, name := range []string{"English", "Deutsch", "Français", "Español"} {
			pageWordsAllowed[lang][name] = "a language's own name, in the language picker"
		}
	}
}

// readsOf renders s in lang and returns what its reader reads; ok false
// (and an error) when it did not answer as s expects.
func (b *bundle) readsOf(t *testing.T, s sight, lang string) ([]string, bool) {
	t.Helper()
	s.cl.lang = lang
	if s.reader != nil {
		if err := b.accounts.SetUserLanguage(b.ctx, s.reader.ID, lang); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = b.accounts.SetUserLanguage(b.ctx, s.reader.ID, "") }()
	}
	for i := 0; s.drain && i < 3000; i++ {
		if st, _, _ := s.cl.get(s.path); st == http.StatusTooManyRequests {
			break
		}
	}
	if s.prime != "" {
		s.cl.get(s.prime)
	}
	var st int
	var body string
	if s.method == http.MethodPost {
		form := url.Values{}
		for k, v := range s.form {
			for _, x := range v {
				form.Add(k, strings.ReplaceAll(x, "{lang}", lang)) // a form that creates something, once a language
			}
		}
		st, _, body = s.cl.post(s.path, form)
	} else {
		st, _, body = s.cl.get(s.path)
	}
	want := s.status
	if want == 0 {
		want = http.StatusOK
	}
	if st != want {
		t.Errorf("%s in %s: %d, want %d\n%s", s.name, lang, st, want, head(body))
		return nil, false
	}
	if lang != "en" && !strings.Contains(body, `<html lang="`+lang+`"`) {
		t.Errorf("%s in %s: not in its language\n%s", s.name, lang, head(body))
		return nil, false
	}
	return notifytest.Reads(body), true
}

// pageData is what the pages show that a party, a person or a machine
// wrote.
func (b *bundle) pageData() []string {
	return []string{"Alpha Studio's agent", "Beta & Co's agent", "Alpha Studio", "Beta & Co", "Gamma", "Delta", "alpha-studio", "Remote-MCP-Server", "alice@example.test", "bob@example.test",
		"carol@example.test", "pat@example.test", "newcomer@example.test", "Board review", "Design review", "Intro call", "Fee talk",
		"Withdrawn talk", "Cancelled talk", "Expired talk", "Rejected talk", "Person talk", "Meeting time", "Where", "Fee", "office", "video",
		"EUR", "UTC", "Taasky", "place", "fee", "not an address", "not a receipt",
		"taasky receipt verify", "Claude", "ChatGPT", "VS Code", "Cursor", "Authorization: Bearer <key>", "Web Push", "Standard Webhooks", "Firefox on Android", "curl", "Helper en", "Helper de", "Helper fr", "Helper es", "Helper ja", "late@example.test", "mailbox unavailable", "try again later", "connection refused", "context deadline exceeded", "Assistant", "Helper bot", "HTTP 500", "room.opened", "room.agreed", "Ed25519", "EdDSA", "JSON", "JWS", "ICS", "CSV", b.base}
}

// everySight builds the rooms, links, accounts and refusals the pages
// show, and lists them.
func (b *bundle) everySight(t *testing.T) []sight {
	t.Helper()
	alice, bob, carol, stranger := b.client(&b.alice), b.client(&b.bob), b.client(&b.carol), b.client(nil)
	var out []sight
	get := func(name string, cl *client, path string) {
		out = append(out, sight{name: name, cl: cl, method: http.MethodGet, path: path})
	}
	refused := func(name string, cl *client, prime, path string, form url.Values, status int) {
		out = append(out, sight{name: name, cl: cl, prime: prime, method: http.MethodPost, path: path, form: form, status: status})
	}
	room := func(id int64) string { return "/rooms/" + formatID(id) }

	// Welcome, sign-in, errors.
	get("welcome", stranger, "/")
	get("signed out", stranger, "/signed-out")
	get("signup", carol, "/signup")
	refused("signup refused", carol, "/signup", "/signup", url.Values{"slug": {"A b"}, "name": {""}}, http.StatusBadRequest)
	out = append(out, sight{name: "404", cl: stranger, method: http.MethodGet, path: "/nope", status: http.StatusNotFound})
	out = append(out, sight{name: "404 signed in", cl: alice, method: http.MethodGet, path: "/rooms/999999", status: http.StatusNotFound})
	out = append(out, sight{name: "403 another's account", cl: bob, method: http.MethodGet, path: "/accounts/alpha/members", status: http.StatusNotFound})
	out = append(out, sight{name: "CSRF refusal", cl: b.client(&b.alice), method: http.MethodPost, path: "/settings/timezone",
		form: url.Values{"time_zone": {"Asia/Tokyo"}}, status: http.StatusForbidden})
	out = append(out, sight{name: "sign-in callback refused", cl: stranger, method: http.MethodGet, path: "/auth/callback?state=x&code=y", status: http.StatusBadRequest})

	// Rooms in each state.
	get("rooms empty", carol, "/")
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	draft, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Intro call", Subject: meeting(7, 9, "office", "1500")})
	if err != nil {
		t.Fatal(err)
	}
	_, _, pendingID, _, oneTap := b.askedBeta("Fee talk", 4)
	agreedID := b.agreed()
	// Withdrawn: alpha's human cancels the invitation.
	wd, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Withdrawn talk"})
	if err != nil {
		t.Fatal(err)
	}
	b.decideAs(t, b.alpha, b.alice, wd.RoomToken, wd.View.RoomID, negotiation.VerdictCancel, "")
	// Cancelled after the join.
	_, tb, cancelledID := b.joined("Cancelled talk", meeting(5, 9, "video", "20"), "")
	b.decideAs(t, b.beta, b.bob, tb, cancelledID, negotiation.VerdictCancel, "")
	// Rejected.
	_, tb, rejectedID := b.joined("Rejected talk", meeting(6, 9, "video", "20"), "")
	v, err := b.rooms.Read(b.ctx, b.beta, tb)
	if err != nil {
		t.Fatal(err)
	}
	b.decideAs(t, b.beta, b.bob, tb, rejectedID, negotiation.VerdictReject, v.TermsOnTable.Options[0].SubjectHash)
	// Expired: nobody joined within the invitation's time.
	exp, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Expired talk"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Format(time.RFC3339Nano)
	if _, err := b.pool.Exec(b.ctx, `UPDATE rooms SET expires_at = $2, snapshot = regexp_replace(snapshot, '"expires_at":"[^"]*"', '"expires_at":"'||$3||'"')
		WHERE id = $1`, exp.View.RoomID, at, at); err != nil {
		t.Fatal(err)
	}
	if n, err := b.rooms.CloseDue(b.ctx, 100); err != nil || n != 1 {
		t.Fatalf("the sweep closed %d rooms: %v", n, err)
	}
	// A request withdrawn (void) before its human answered.
	tbVoid, voidID, voidTap := b.askedToApprove(t, "Board review", "", meeting(8, 9, "video", "20"))
	if _, err := b.rooms.Propose(b.ctx, b.beta, tbVoid, mv("counter", meeting(8, 10, "video", "25"))); err != nil {
		t.Fatal(err)
	}
	// Terms outside the human's limits, asked to approve.
	_, limitsID, limitsTap := b.askedToApprove(t, "Board review", `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`, meeting(12, 10, "office", "1500"))
	get("room outside limits (bob)", bob, room(limitsID))
	get("one-tap outside limits", stranger, "/c/"+limitsTap)
	out[len(out)-1].reader = &b.bob
	for _, f := range []string{"", "?state=waiting", "?state=live", "?state=agreed", "?state=closed"} {
		get("rooms list (alice) "+f, alice, "/"+f)
		get("rooms list (bob) "+f, bob, "/"+f)
	}
	for name, id := range map[string]int64{"draft": draft.View.RoomID, "pending": pendingID, "agreed": agreedID, "withdrawn": wd.View.RoomID,
		"cancelled": cancelledID, "rejected": rejectedID, "expired": exp.View.RoomID, "void": voidID} {
		get("room "+name+" (alice)", alice, room(id))
		if name != "draft" && name != "withdrawn" && name != "expired" {
			get("room "+name+" (bob)", bob, room(id))
		}
	}
	get("receipt page", alice, room(agreedID)+"/receipt")
	refused("decide refused", bob, room(pendingID), room(pendingID)+"/decide", url.Values{"answer": {"maybe"}}, http.StatusBadRequest)

	// One-tap pages: fresh, used, stopped, withdrawn.
	bobs := len(out)
	get("one-tap fresh", stranger, "/c/"+oneTap)
	refused("one-tap bad answer", stranger, "/c/"+oneTap, "/c/"+oneTap, url.Values{"answer": {"maybe"}}, http.StatusBadRequest)
	get("one-tap withdrawn", stranger, "/c/"+voidTap)
	_, _, _, usedHash, usedTap := b.askedBeta("Fee talk", 9)
	stranger.get("/c/" + usedTap)
	if st, _, body := stranger.post("/c/"+usedTap, url.Values{"subject_hash": {string(usedHash)}, "answer": {"confirm"}}); st != http.StatusOK {
		t.Fatalf("one-tap answer: %d\n%s", st, body)
	}
	get("one-tap used", stranger, "/c/"+usedTap)
	refused("one-tap used again", stranger, "/c/"+usedTap, "/c/"+usedTap, url.Values{"subject_hash": {string(usedHash)}, "answer": {"confirm"}}, http.StatusConflict)
	_, _, stoppedID, _, stoppedTap := b.askedBeta("Fee talk", 10)
	if _, err := b.pool.Exec(b.ctx, `UPDATE onetap_tokens SET used_at = now(), stopped = 'role' WHERE room_id = $1`, stoppedID); err != nil {
		t.Fatal(err)
	}
	get("one-tap stopped", stranger, "/c/"+stoppedTap)
	closedTa, _, closedID, _, closedTap := b.askedBeta("Fee talk", 11)
	b.decideAs(t, b.alpha, b.alice, closedTa, closedID, negotiation.VerdictCancel, "")
	get("one-tap of a closed room", stranger, "/c/"+closedTap)
	for i := bobs; i < len(out); i++ {
		out[i].reader = &b.bob
	}
	for _, p := range []string{"/c/ot_nope", "/i/inv_nope", "/p/ps_nope", "/join/nope", "/unsubscribe/nope"} {
		out = append(out, sight{name: "unknown link " + p, cl: stranger, method: http.MethodGet, path: p, status: http.StatusNotFound})
	}

	// An invitation, its counter form refused, a person's seat.
	slots, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Person talk", Slots: slotsOfDec7})
	if err != nil {
		t.Fatal(err)
	}
	invite := "/i/" + slots.InviteCode
	get("invitation", stranger, invite)
	refused("invitation counter refused", stranger, invite, invite, url.Values{"verdict": {"counter"},
		"f.meeting_time.0.start": {"2026-12-07T10:00"}, "f.meeting_time.0.end": {"2026-12-07T09:00"}, "f.meeting_time.0.zone": {"Europe/Berlin"}}, http.StatusBadRequest)
	refused("invitation pick refused", stranger, invite, invite, url.Values{"verdict": {"approve"}, "subject_hash": {"sha256:00"}}, http.StatusConflict)
	schemaInvite, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Board review", Subject: meeting(11, 9, "office", "1500")})
	if err != nil {
		t.Fatal(err)
	}
	get("invitation with a schema", stranger, "/i/"+schemaInvite.InviteCode)
	refused("invitation schema counter refused", stranger, "/i/"+schemaInvite.InviteCode, "/i/"+schemaInvite.InviteCode, url.Values{"verdict": {"counter"},
		"f.place": {"moon"}, "f.fee.amount": {"abc"}}, http.StatusBadRequest)
	seat := b.seatOf(t, "Person talk")
	get("seat", b.client(nil), "/p/"+seat)
	get("seat welcome", b.client(nil), "/p/"+seat+"?welcome=1")
	get("invitation answered", stranger, "/i/"+b.answeredInvite(t))
	turnSeat, turnToken := b.seatInTurn(t)
	get("seat in its turn", b.client(nil), "/p/"+turnSeat)
	refused("seat counter refused", b.client(nil), "/p/"+turnSeat, "/p/"+turnSeat, url.Values{"verdict": {"counter"},
		"f.meeting_time.0.start": {"2026-12-07T10:00"}, "f.meeting_time.0.end": {"2026-12-07T09:00"}, "f.meeting_time.0.zone": {"Europe/Berlin"}}, http.StatusBadRequest)
	get("room with a person (alice)", alice, room(turnToken))

	// Settings: notifications, sessions, devices, language, zone.
	push := notifytest.NewPushEndpoint(t, b.vapidPublic)
	dev := push.NewDevice(t, "phone")
	if _, err := b.notify.Subscribe(b.ctx, b.alice.ID, app.PushSubscriptionInput{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth, Device: "Firefox on Android"}); err != nil {
		t.Fatal(err)
	}
	b.sessionOf(b.alice) // another session to list
	get("settings", alice, "/settings")
	get("settings (bob)", bob, "/settings")
	for done := range settingsNotices {
		get("settings done "+done, alice, "/settings?done="+done)
	}
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicTest, UserID: b.alice.ID}, JobID: 1, Attempt: 1, Channel: jobs.ChannelPush, SubscriptionID: 999}
	for i, o := range []jobs.Outcome{{Status: jobs.StatusSkipped, Detail: "no device"}, {Status: jobs.StatusGone, Detail: notify.ErrGone.Error()},
		{Status: jobs.StatusFailed, Detail: "550 5.1.1 mailbox unavailable"}, {Status: jobs.StatusRetrying, Detail: "421 4.7.0 try again later"}, {Status: jobs.StatusSent}} {
		d.JobID = int64(100 + i)
		if err := b.notify.Record(b.ctx, d, o); err != nil {
			t.Fatal(err)
		}
	}
	get("deliveries", alice, "/settings/deliveries")
	refused("settings key issued", alice, "/settings", "/settings/agents/"+formatID(b.alpha.ID)+"/keys", url.Values{"account": {"alpha"}}, http.StatusOK)
	refused("settings agent created", alice, "/settings", "/settings/agents", url.Values{"account": {"alpha"}, "name": {"Helper {lang}"}}, http.StatusOK)
	refused("settings zone refused", alice, "/settings", "/settings/timezone", url.Values{"time_zone": {"Europe/Atlantis"}}, http.StatusBadRequest)
	refused("settings push refused", alice, "/settings", "/settings/push", url.Values{"endpoint": {dev.Endpoint}, "p256dh": {"short"}, "auth": {dev.Auth}}, http.StatusBadRequest)
	refused("settings agent refused", alice, "/settings", "/settings/agents", url.Values{"account": {"alpha"}, "name": {""}}, http.StatusBadRequest)
	refused("settings key refused", alice, "/settings", "/settings/keys/"+formatID(b.alpha.ID)+"/revoke", url.Values{}, http.StatusBadRequest)

	// Account pages.
	smtp := b.inviteMails(t)
	if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", "newcomer@example.test", app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	newcomer := b.account3("delta", "Delta", "newcomer@example.test")
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.hooks.CreateWebhook(b.ctx, b.alice.ID, "alpha", "https://hooks.example.test/in", []string{"room.opened", "room.agreed"}); err != nil {
		t.Fatal(err)
	}
	hooks, err := b.hooks.ListWebhooks(b.ctx, b.alice.ID, "alpha")
	if err != nil || len(hooks) != 1 {
		t.Fatalf("alpha's webhooks: %v %v", hooks, err)
	}
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	_, msgs, err := b.hooks.WebhookLog(b.ctx, b.alice.ID, "alpha", hooks[0].ID)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the endpoint's messages: %+v %v", msgs, err)
	}
	since := time.Now().Add(-app.HookFailingFor - time.Hour)
	for i, a := range []jobs.WebhookAttempt{{StatusCode: 500, Error: "answered HTTP 500", Status: jobs.StatusRetrying},
		{Error: "no answer: dial tcp 192.0.2.1:443: connect: connection refused", Status: jobs.StatusRetrying},
		{Error: "no answer: context deadline exceeded", Status: jobs.StatusRetrying, At: time.Now()}} {
		a.AccountID, a.MessageID, a.JobID, a.Attempt = b.alphaAccount.ID, msgs[0].ID, int64(i+1), i+1
		if a.At.IsZero() {
			a.At = since.Add(time.Duration(i) * time.Minute)
		}
		if err := b.hooks.RecordWebhook(b.ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	// Each attempt says its outcome once: "answered HTTP 500", not "HTTP 500 ·
	// answered HTTP 500"; "no answer: the connection was refused", not "no
	// answer · no answer: …".
	if _, _, body := alice.get("/accounts/alpha/webhooks/" + formatID(hooks[0].ID)); !strings.Contains(body, `<span class="bad">answered HTTP 500</span></li>`) ||
		!strings.Contains(body, ` · <span class="bad">no answer: the connection was refused</span></li>`) || strings.Count(body, "HTTP 500") != 1 ||
		strings.Contains(body, "no answer · ") {
		t.Errorf("the webhook log's attempts:\n%s", body)
	}
	for _, p := range []string{"members", "settings", "webhooks", "start", "webhooks/" + formatID(hooks[0].ID)} {
		get("account "+p, alice, "/accounts/alpha/"+p)
	}
	get("account members (a member)", carol, "/accounts/alpha/members")
	join := joinPathTo(t, smtp, "newcomer@example.test")
	get("join", b.client(nil), join)
	get("join (another address)", carol, join)
	get("join (its address)", b.client(&newcomer), join)
	for done := range membersNotices {
		get("members done "+done, alice, "/accounts/alpha/members?done="+done)
	}
	get("account settings renamed", alice, "/accounts/alpha/settings?done=renamed")
	refused("webhook created", alice, "/accounts/alpha/webhooks", "/accounts/alpha/webhooks", url.Values{"url": {"https://hooks.example.test/{lang}"}, "events": {"room.opened"}}, http.StatusOK)
	get("account deleted", alice, "/account-deleted")
	late, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", "late@example.test", app.MemberRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	lateJoin := joinPathTo(t, smtp, "late@example.test")
	if err := b.accounts.RevokeInvitation(b.ctx, b.alice.ID, "alpha", late.ID); err != nil {
		t.Fatal(err)
	}
	out = append(out, sight{name: "join revoked", cl: b.client(nil), method: http.MethodGet, path: lateJoin})
	refused("invite refused", alice, "/accounts/alpha/members", "/accounts/alpha/invitations", url.Values{"email": {"not an address"}, "role": {"member"}}, http.StatusBadRequest)
	refused("invite bad role", alice, "/accounts/alpha/members", "/accounts/alpha/invitations", url.Values{"email": {"x@example.test"}, "role": {"boss"}}, http.StatusBadRequest)
	refused("invite a member", alice, "/accounts/alpha/members", "/accounts/alpha/invitations", url.Values{"email": {"carol@example.test"}, "role": {"member"}}, http.StatusConflict)
	refused("role refused", alice, "/accounts/alpha/members", "/accounts/alpha/members/"+formatID(b.carol.ID)+"/role", url.Values{"role": {"boss"}}, http.StatusBadRequest)
	refused("own role refused", alice, "/accounts/alpha/members", "/accounts/alpha/members/"+formatID(b.alice.ID)+"/role", url.Values{"role": {"member"}}, http.StatusConflict)
	refused("remove refused", carol, "/accounts/alpha/members", "/accounts/alpha/members/"+formatID(b.alice.ID)+"/remove", url.Values{}, http.StatusForbidden)
	refused("signup slug taken", carol, "/signup", "/signup", url.Values{"slug": {"alpha"}, "name": {"Alpha"}}, http.StatusForbidden)
	refused("rename bidi", alice, "/accounts/alpha/settings", "/accounts/alpha/rename", url.Values{"name": {"Alpha\u202eoidutS"}}, http.StatusBadRequest)
	refused("webhook bad event", alice, "/accounts/alpha/webhooks", "/accounts/alpha/webhooks", url.Values{"url": {"https://hooks.example.test/x"}, "events": {"room.nope"}}, http.StatusBadRequest)
	refused("rename refused", alice, "/accounts/alpha/settings", "/accounts/alpha/rename", url.Values{"name": {""}}, http.StatusBadRequest)
	refused("delete refused", alice, "/accounts/alpha/settings", "/accounts/alpha/delete", url.Values{"confirm": {"nope"}}, http.StatusBadRequest)
	refused("webhook refused", alice, "/accounts/alpha/webhooks", "/accounts/alpha/webhooks", url.Values{"url": {"ftp://hooks.example.test/x"}, "events": {"room.opened"}}, http.StatusBadRequest)
	refused("leave refused", alice, "/accounts/alpha/members", "/accounts/alpha/leave", url.Values{}, http.StatusConflict)

	// OAuth consent and its refusals.
	state := app.NewOAuth(b.pool)
	srv, err := oauthserver.New(oauthserver.Config{BaseURL: b.base, Secret: make([]byte, 32), State: state, Accounts: b.accounts})
	if err != nil {
		t.Fatal(err)
	}
	b.dash.oauth = struct {
		*oauthserver.Server
		*app.OAuth
	}{srv, state}
	oc, err := state.SaveClient(b.ctx, app.OAuthClient{ID: "tsc_tour", Kind: app.OAuthClientRegistered, Name: "Helper bot",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a verifier of the test, long enough to be one: 43+ characters"))
	q := url.Values{"response_type": {"code"}, "client_id": {oc.ID}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
		"state": {"state-12345"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"resource": {b.base + "/mcp/alpha"}}
	get("consent", alice, "/oauth/authorize?"+q.Encode())
	get("consent (bob)", bob, "/oauth/authorize?"+q.Encode())
	bad := url.Values{}
	for k, v := range q {
		bad[k] = v
	}
	bad.Set("redirect_uri", "https://evil.example/cb")
	out = append(out, sight{name: "consent refused redirect", cl: alice, method: http.MethodGet, path: "/oauth/authorize?" + bad.Encode(), status: http.StatusBadRequest})
	bad = url.Values{}
	for k, v := range q {
		bad[k] = v
	}
	bad.Del("code_challenge")
	out = append(out, sight{name: "consent refused challenge", cl: alice, method: http.MethodGet, path: "/oauth/authorize?" + bad.Encode(), status: http.StatusBadRequest})
	answer := url.Values{"account": {"nope"}, "agent": {"new"}, "decision": {"allow"}}
	for k, v := range q {
		answer[k] = v
	}
	refused("consent answer refused", alice, "/oauth/authorize?"+q.Encode(), "/oauth/authorize", answer, http.StatusBadRequest)

	// The receipt's verify page: empty, good, each refusal.
	_, _, jws := alice.get(room(agreedID) + "/receipt.jws")
	get("verify", stranger, "/verify")
	refused("verify empty", stranger, "/verify", "/verify", url.Values{"receipt": {""}}, http.StatusBadRequest)
	refused("verify good", stranger, "/verify", "/verify", url.Values{"receipt": {jws}}, http.StatusOK)
	refused("verify malformed", stranger, "/verify", "/verify", url.Values{"receipt": {"not a receipt"}}, http.StatusUnprocessableEntity)
	parts := strings.Split(jws, ".")
	if len(parts) == 3 {
		refused("verify base64", stranger, "/verify", "/verify", url.Values{"receipt": {parts[0] + "=." + parts[1] + "." + parts[2]}}, http.StatusUnprocessableEntity)
		tampered := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
		refused("verify tampered", stranger, "/verify", "/verify", url.Values{"receipt": {tampered}}, http.StatusUnprocessableEntity)
		var hdr map[string]any
		if raw, err := base64.RawURLEncoding.DecodeString(parts[0]); err == nil && json.Unmarshal(raw, &hdr) == nil {
			hdr["kid"] = "nope"
			raw, _ = json.Marshal(hdr)
			refused("verify unknown key", stranger, "/verify", "/verify", url.Values{"receipt": {base64.RawURLEncoding.EncodeToString(raw) + "." + parts[1] + "." + parts[2]}}, http.StatusUnprocessableEntity)
			if payload, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
				other := strings.Replace(string(payload), b.base, "https://other.example", 1)
				refused("verify foreign, unknown key", stranger, "/verify", "/verify", url.Values{"receipt": {base64.RawURLEncoding.EncodeToString(raw) + "." +
					base64.RawURLEncoding.EncodeToString([]byte(other)) + "." + parts[2]}}, http.StatusUnprocessableEntity)
			}
		}
		if raw, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			foreign := strings.Replace(string(raw), b.base, "https://other.example", 1)
			refused("verify foreign", stranger, "/verify", "/verify", url.Values{"receipt": {parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(foreign)) + "." + parts[2]}}, http.StatusUnprocessableEntity)
		}
	}

	// Unsubscribe and refuse-invitations pages.
	unsub := strings.TrimPrefix(b.notify.UnsubscribeURL(b.alice.ID), b.base)
	get("unsubscribe", stranger, unsub)
	out[len(out)-1].reader = &b.alice
	refuse := strings.TrimPrefix(b.notify.RefuseInvitationsURL("pat@example.test"), b.base)
	get("refuse invitations", stranger, refuse)
	out = append(out, sight{name: "refuse invitations forged", cl: stranger, method: http.MethodGet, path: refuse + "x", status: http.StatusNotFound})

	// The rate limit's page, last: the stranger's bucket runs dry.
	out = append(out, sight{name: "rate limit", cl: b.client(nil), method: http.MethodGet, path: "/verify", status: http.StatusTooManyRequests, drain: true})
	return out
}

// decideAs has agent ask its human for verdict on hash and the human
// (user) confirm it in the dashboard's service.
func (b *bundle) decideAs(t *testing.T, agent app.Agent, user app.User, token string, roomID int64, verdict negotiation.Verdict, hash negotiation.SubjectHash) {
	t.Helper()
	c, _, err := b.rooms.RequestConfirmation(b.ctx, agent, token, verdict, hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, user.ID, roomID, c.ID, c.SubjectHash, true); err != nil {
		t.Fatal(err)
	}
}

// joinPathTo waits for the member invitation mailed to addr and returns
// the path of its link (/join/…).
func joinPathTo(t *testing.T, smtp *notifytest.SMTPServer, addr string) string {
	t.Helper()
	for range 200 {
		for _, m := range smtp.Mails() {
			if m.To[0] == addr {
				_, link := joinLinkIn(t, m)
				return link[strings.Index(link, "/join/"):]
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no invitation mailed to %s", addr)
	return ""
}

// seatInTurn is the seat of a person who picked a slot and whose turn it
// is again (alpha's agent countered): its token, and the room's id.
func (b *bundle) seatInTurn(t *testing.T) (string, int64) {
	t.Helper()
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slotsOfDec7, Title: "Person talk"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	_, _, body := pat.get("/i/" + open.InviteCode)
	st, loc, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {valueShown(body, "subject_hash")}})
	if st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	later := json.RawMessage(`{"meeting_time":{"start":"2026-12-09T09:00:00+01:00","end":"2026-12-09T09:30:00+01:00"}}`)
	if _, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("counter", later)); err != nil {
		t.Fatal(err)
	}
	seat, _, _ := strings.Cut(strings.TrimPrefix(loc, "/p/"), "?")
	return seat, open.View.RoomID
}

// answeredInvite is the code of an invitation a person answered.
func (b *bundle) answeredInvite(t *testing.T) string {
	t.Helper()
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slotsOfDec7, Title: "Person talk"})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	_, _, body := pat.get("/i/" + open.InviteCode)
	if st, _, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {valueShown(body, "subject_hash")}}); st != http.StatusSeeOther {
		t.Fatalf("pick: %d", st)
	}
	return open.InviteCode
}

// TestScriptSaysNoEnglish: what the page's script shows a person (a
// push's failure, the name it gives this browser) comes from the page's
// words (its data-w-* attributes, in the reader's language): no string
// of the script is a sentence. It said "notifications were not allowed",
// "the server answered 500", and named every device "Firefox on
// Android", "A browser on Linux" in English whatever the reader's
// language.
func TestScriptSaysNoEnglish(t *testing.T) {
	t.Parallel()
	src, err := staticFiles.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	code := jsComment.ReplaceAllString(string(src), "")
	for _, lit := range jsString.FindAllString(code, -1) {
		s := lit[1 : len(lit)-1]
		if s == "use strict" || strings.ContainsAny(s, "[].#,=:/(") || !strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
			continue // a selector, a pattern, a path
		}
		if strings.Contains(strings.TrimSpace(s), " ") || strings.TrimSpace(s) != s || s == "A browser" {
			t.Errorf("app.js shows %s in English: its words belong in the page's data-w-* attributes", lit)
		}
	}
}

// jsComment is a line comment of app.js; jsString a string literal.
var (
	jsComment = regexp.MustCompile(`(?m)^\s*//.*$|\s//\s.*$|/\*[\s\S]*?\*/`)
	jsString  = regexp.MustCompile(`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"`)
)

// TestEveryReceiptCheckHasWords: each check receipt.Verify names
// (receipt.Error's Check) has its words in receiptChecks, so that a
// refusal on /verify is never its English Detail.
func TestEveryReceiptCheckHasWords(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../receipt/verify.go")
	if err != nil {
		t.Fatal(err)
	}
	checks := regexp.MustCompile(`fail\(Problem\w+, "(\w+)"|Check: "(\w+)"( \+ part)?`).FindAllStringSubmatch(string(src), -1)
	if len(checks) < 10 {
		t.Fatalf("found %d checks in receipt/verify.go: the pattern missed them", len(checks))
	}
	for _, m := range checks {
		names := []string{m[1] + m[2]}
		if m[3] != "" {
			names = []string{m[2] + "header", m[2] + "payload", m[2] + "signature"}
		}
		for _, name := range names {
			if _, ok := receiptChecks[name]; !ok && name != "signature" { // tampered: the page says it without its detail
				t.Errorf("receipt's check %q has no words in receiptChecks", name)
			}
		}
	}
}
