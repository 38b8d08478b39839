package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/taasky/taasky/internal/fiberhttp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/devoidc"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// bundle is a dashboard on a database of its own, served on a 127.0.0.1
// port with the development OIDC provider, live updates fed by LISTEN,
// and two accounts: alpha (owner alice) and beta (owner bob), each with an
// agent.
type bundle struct {
	t            *testing.T
	ctx          context.Context
	pool         *pgxpool.Pool
	rooms        *app.Rooms
	accounts     *app.Accounts
	notify       *app.Notifications
	hooks        *app.Webhooks // to loopback (no worker: workHooks starts one)
	vapidPublic  string        // the VAPID key the settings show (no worker sends here)
	dash         *Dashboard
	app          *fiber.App
	base         string
	alpha, beta  app.Agent
	alice, bob   app.User
	carol        app.User // in no account of the rooms
	alphaAccount app.Account
	// river inserts the jobs; none is worked (JobList finds them).
	river *river.Client[pgx.Tx]
}

// setup builds the bundle; each tweak changes the dashboard's Config
// before New.
func setup(t *testing.T, tweaks ...func(*Config)) *bundle {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool := pgtest.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := receipt.NewKeyring(base, 1, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 32) })
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: base, Receipts: keys, OneTapKept: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	b := &bundle{t: t, ctx: ctx, pool: pool, rooms: rooms, accounts: app.NewAccounts(pool), base: base, river: rc}
	if err := b.accounts.UseTeams(app.TeamsConfig{River: rc, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: base,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), RoomTokenKey: bytes.Repeat([]byte{9}, 32)}); err != nil {
		t.Fatal(err)
	}
	b.notify, err = app.NewNotifications(app.NotificationsConfig{Pool: pool, River: rc, Rooms: rooms,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	b.hooks = app.NewWebhooks(app.WebhooksConfig{Pool: pool, River: rc, Rooms: rooms, BaseURL: base})
	if _, b.vapidPublic, err = webpush.GenerateVAPIDKeys(); err != nil {
		t.Fatal(err)
	}
	b.alphaAccount, b.alpha, b.alice = b.account("alpha", "Alpha Studio", "alice@example.test")
	_, b.beta, b.bob = b.account("beta", "Beta & Co", "bob@example.test")
	b.carol = b.account3("gamma", "Gamma", "carol@example.test")

	log := slog.New(slog.DiscardHandler)
	b.app = fiber.New(fiber.Config{DisableStartupMessage: true, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second})
	issuer := base + "/dev-oidc"
	h, err := devoidc.New(devoidc.Config{Issuer: issuer,
		Clients: []devoidc.Client{{ID: "dash", Secret: "dash-secret", RedirectURIs: []string{base + "/auth/callback"}}},
		Emails:  func(ctx context.Context) ([]string, error) { return b.accounts.OwnerEmails(ctx, 20) }})
	if err != nil {
		t.Fatal(err)
	}
	b.app.All("/dev-oidc/*", fiberhttp.Handler(h))
	hub := NewHub(rooms.RoomSeats, log)
	go app.Listen(ctx, pool.Config().ConnConfig.Copy(), log, hub.Channels(app.RoomChanges)...)
	cfg := Config{BaseURL: base, SessionKey: bytes.Repeat([]byte{5}, 32), Rooms: rooms, Accounts: b.accounts,
		Hub: hub, Log: log, OIDC: OIDC{Issuer: issuer, ClientID: "dash", ClientSecret: "dash-secret"},
		Notifications: b.notify, Webhooks: b.hooks, VAPIDPublicKey: b.vapidPublic, JobsUI: jobsUIStub, Receipts: keys}
	for _, tweak := range tweaks {
		tweak(&cfg)
	}
	b.dash, err = New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b.dash.Mount(b.app)
	served := make(chan struct{})
	go func() { _ = b.app.Listener(ln); close(served) }()
	t.Cleanup(func() {
		cancel()
		_ = b.app.ShutdownWithTimeout(5 * time.Second)
		<-served
	})
	// Wait until it serves: a shutdown that comes before the listener is
	// up finds nothing to stop, and the listener then serves forever.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		resp, err := http.Get(base + "/static/app.css")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard does not serve: %v", err)
		}
	}
	return b
}

func (b *bundle) account(slug, name, email string) (app.Account, app.Agent, app.User) {
	b.t.Helper()
	acct, err := b.accounts.CreateAccount(b.ctx, slug, name, email)
	if err != nil {
		b.t.Fatal(err)
	}
	agent, _, err := b.accounts.CreateAgent(b.ctx, slug, name+"'s agent", email)
	if err != nil {
		b.t.Fatal(err)
	}
	u, err := b.accounts.UserByEmail(b.ctx, email)
	if err != nil {
		b.t.Fatal(err)
	}
	return acct, agent, u
}

func (b *bundle) account3(slug, name, email string) app.User {
	_, _, u := b.account(slug, name, email)
	return u
}

var meetingSchema = json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},` +
	`"place":{"type":"enum","label":"Where","values":["office","video"]},` +
	`"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true}}`)

func meeting(day, hour int, place, fee string) json.RawMessage {
	s := `{"meeting_time":{"start":"2026-12-` + two(day) + `T` + two(hour) + `:00:00+01:00","end":"2026-12-` + two(day) + `T` + two(hour) + `:30:00+01:00"},"place":"` + place + `"`
	if fee != "" {
		s += `,"fee":{"amount":"` + fee + `","currency":"EUR"}`
	}
	return json.RawMessage(s + "}")
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// askedBeta opens and joins a room titled title, in which alpha's agent
// offers a video meeting on day at 9:00 for 20 and beta's agent asks its
// human to approve it: the room's seat tokens and id, the terms' hash, and
// a one-tap link for that confirmation.
func (b *bundle) askedBeta(title string, day int) (ta, tb string, roomID int64, hash negotiation.SubjectHash, token string) {
	b.t.Helper()
	ta, tb, roomID = b.joined(title, nil, "")
	v, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(day, 9, "video", "20")))
	if err != nil {
		b.t.Fatal(err)
	}
	hash = v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "approve", hash)
	if err != nil {
		b.t.Fatal(err)
	}
	if token, err = b.rooms.IssueOneTap(b.ctx, b.pool, roomID, cv.ID, "email"); err != nil {
		b.t.Fatal(err)
	}
	return ta, tb, roomID, hash, token
}

// joined opens a room by alpha (with title and opening terms) and joins
// it by beta with limits; it returns both room tokens and the room id.
func (b *bundle) joined(title string, subject json.RawMessage, betaLimits string) (string, string, int64) {
	b.t.Helper()
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: subject, Title: title})
	if err != nil {
		b.t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(betaLimits)})
	if err != nil {
		b.t.Fatal(err)
	}
	return open.RoomToken, j.RoomToken, j.View.RoomID
}

// askedToApprove is a room whose human is asked to approve: opened and
// joined (beta's limits betaLimits), alpha's offer on the table, beta's
// human asked by email. It returns beta's room token, the room id and the
// request's one-tap token.
func (b *bundle) askedToApprove(t *testing.T, title, betaLimits string, offer json.RawMessage) (tb string, roomID int64, oneTap string) {
	t.Helper()
	ta, tb, roomID := b.joined(title, nil, betaLimits)
	v, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", offer))
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	oneTap, err = b.rooms.IssueOneTap(b.ctx, b.pool, roomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	return tb, roomID, oneTap
}

// client is a browser without JavaScript, through app.Test: it keeps its
// cookies and the last CSRF token it was given.
type client struct {
	b       *bundle
	cookies map[string]string
	token   string
	lang    string // the browser's Accept-Language
	header  http.Header
	// policy is the Referrer-Policy of the last page: under no-referrer
	// a browser's form says Origin "null" and no Referer (Fetch, "append
	// a request Origin header"; Chromium does so).
	policy string
}

func (b *bundle) client(user *app.User) *client {
	cl := &client{b: b, cookies: map[string]string{}}
	if user != nil {
		cl.cookies[sessionCookie] = b.sessionOf(*user)
	}
	return cl
}

// sessionOf is the session cookie's value of a new session of user (a
// sign-in, as curl: no browser named).
func (b *bundle) sessionOf(user app.User) string {
	b.t.Helper()
	return b.sealedSession(b.dash, user, app.SessionDevice{Browser: "curl"})
}

// sealedSession starts a session of user on device and seals its cookie
// as d does.
func (b *bundle) sealedSession(d *Dashboard, user app.User, device app.SessionDevice) string {
	b.t.Helper()
	token, s, err := b.accounts.StartSession(b.ctx, user.ID, device)
	if err != nil {
		b.t.Fatal(err)
	}
	return d.sign.seal("session", session{Token: token, Expires: s.CreatedAt.Add(sessionTTL).Unix()})
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// do sends a request and returns the status, the Location and the body.
func (cl *client) do(method, path string, form url.Values) (int, string, string) {
	cl.b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet && method != http.MethodHead {
		req.Header.Set("Origin", cl.b.dash.baseURL) // as a browser does: a form of our pages
		if cl.policy == "no-referrer" {
			req.Header.Set("Origin", "null")
		}
	}
	for k, v := range cl.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	if cl.lang != "" {
		req.Header.Set("Accept-Language", cl.lang)
	}
	resp, err := cl.b.app.Test(req, -1)
	if err != nil {
		cl.b.t.Fatal(err)
	}
	defer resp.Body.Close()
	cl.header = resp.Header
	if method == http.MethodGet {
		cl.policy = resp.Header.Get("Referrer-Policy")
	}
	out, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(cl.cookies, c.Name)
		} else {
			cl.cookies[c.Name] = c.Value
		}
	}
	if m := csrfInput.FindSubmatch(out); m != nil {
		cl.token = string(m[1])
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(out)
}

func (cl *client) get(path string) (int, string, string) { return cl.do(http.MethodGet, path, nil) }

// post sends a form with the CSRF token of the last page.
func (cl *client) post(path string, form url.Values) (int, string, string) {
	if form == nil {
		form = url.Values{}
	}
	form.Set(csrfField, cl.token)
	return cl.do(http.MethodPost, path, form)
}

type moveInput = app.MoveInput

// jobsUIStub stands for the River UI (cmd/taasky mounts the real one): it
// answers what it was asked, so a test sees who got through.
var jobsUIStub = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, "jobs ui: "+r.Method+" "+r.URL.Path)
})
