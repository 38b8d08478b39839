package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/SherClockHolmes/webpush-go"
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/mcpserver"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
	"github.com/taasky/taasky/receipt"
)

// full runs every suite at its full size (minutes); without it they run at
// the small size CI runs.
var full = flag.Bool("trust.full", false, "run the trust suites at full size (minutes, not seconds)")

// size is small in a normal run and big with -trust.full.
func size(small, big int) int {
	if *full {
		return big
	}
	return small
}

// stack is Taasky in this process, wired as cmd/taasky wires it: the MCP
// endpoint (and, if asked, the dashboard and the notification workers with
// an SMTP server of the test's own) on a 127.0.0.1 port, on a database of
// the test's own, with tenants: accounts with one owner and one agent each.
type stack struct {
	t        testing.TB
	ctx      context.Context
	pool     *pgxpool.Pool
	river    *river.Client[pgx.Tx]
	rooms    *app.Rooms
	accounts *app.Accounts
	notes    *app.Notifications
	hooks    *app.Webhooks
	smtp     *notifytest.SMTPServer
	push     *notifytest.PushEndpoint // with notify: every tenant's human has a device on it
	app      *fiber.App
	base     string
	tenants  []*tenant
	logMu    sync.Mutex
	logs     bytes.Buffer // everything the service logged, at debug level (under logMu)
}

// logText is what the service logged so far.
func (s *stack) logText() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.logs.String()
}

type stackConfig struct {
	tenants   int
	notify    bool // work the River jobs: emails go to an in-process SMTP server
	dashboard bool // mount the dashboard with the development OIDC issuer
	receipts  bool // receipt keys: agreed rooms get receipts, the dashboard serves them
	oauth     bool // the authorization server, and the dashboard's OAuth agents
	pace      negotiation.Pace
	rate      mcpserver.RateLimit
	now       func() time.Time
}

func newStack(t testing.TB, c stackConfig) *stack {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pc, err := pgxpool.ParseConfig(pgtest.NewDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	pc.MaxConns = 20 // as cmd/taasky: room for requests beside River's producers and listener
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{t: t, ctx: ctx, pool: pool, accounts: app.NewAccounts(pool), base: "http://" + ln.Addr().String()}
	log := slog.New(slog.NewJSONHandler(lockedWriter{&s.logMu, &s.logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))

	sweeper := &jobs.SweepWorker{Log: log}
	email := &jobs.EmailWorker{From: notify.DefaultFrom(s.base), Log: log}
	push := &jobs.PushWorker{Log: log}
	remind := &jobs.RemindWorker{}
	invite := &jobs.InviteWorker{From: notify.DefaultFrom(s.base), Log: log}
	member := &jobs.MemberInviteWorker{Invitations: s.accounts, From: notify.DefaultFrom(s.base), Log: log}
	workers := river.NewWorkers()
	river.AddWorker(workers, member)
	river.AddWorker(workers, sweeper)
	river.AddWorker(workers, &jobs.CloseDueWorker{})
	river.AddWorker(workers, email)
	river.AddWorker(workers, push)
	river.AddWorker(workers, remind)
	river.AddWorker(workers, invite)
	hook := &jobs.WebhookWorker{Sender: notify.NewWebhookSender(true, nil), Log: log, Backoff: []time.Duration{200 * time.Millisecond}}
	river.AddWorker(workers, hook)
	deleter := &jobs.AccountDeleteWorker{} // an account's deletion, as cmd/taasky
	river.AddWorker(workers, deleter)
	rcfg := &river.Config{Workers: workers, Logger: log, FetchCooldown: jobs.FetchCooldown, FetchOnlyKnownKinds: true}
	if c.notify {
		s.smtp = notifytest.NewSMTPServer(t)
		email.Mailer = notify.NewSMTP(notify.SMTPConfig{Host: s.smtp.Host, Port: s.smtp.Port})
		invite.Mailer, member.Mailer = email.Mailer, email.Mailer
		priv, pub, err := webpush.GenerateVAPIDKeys()
		if err != nil {
			t.Fatal(err)
		}
		s.push = notifytest.NewPushEndpoint(t, pub)
		push.Pusher = &notify.Pusher{VAPID: notify.VAPID{PublicKey: pub, PrivateKey: priv, Subscriber: "trust@example.test"}, AllowInternal: true}
		rcfg.Queues = jobs.Queues(10, 10)
		rcfg.FetchPollInterval = 100 * time.Millisecond
		rcfg.PeriodicJobs = []*river.PeriodicJob{jobs.SweepJob()} // as cmd/taasky
	}
	if s.river, err = river.NewClient(riverpgxv5.New(pool), rcfg); err != nil {
		t.Fatal(err)
	}
	var keys *receipt.Keyring
	if c.receipts {
		if keys, err = newReceiptKeys(s.base); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.accounts.UseTeams(app.TeamsConfig{River: s.river, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: s.base, Now: c.now,
		RoomTokenKey: bytes.Repeat([]byte{2}, 32)}); err != nil {
		t.Fatal(err)
	}
	s.rooms, err = app.NewRooms(app.RoomsConfig{Pool: pool, River: s.river, LimitsKey: bytes.Repeat([]byte{1}, 32),
		TokenKey: bytes.Repeat([]byte{2}, 32), BaseURL: s.base, Now: c.now, Pace: c.pace, Accounts: s.accounts, Receipts: keys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.rooms.Close) // before the pool closes: the last changes are announced
	if s.notes, err = app.NewNotifications(app.NotificationsConfig{Pool: pool, River: s.river, Rooms: s.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), BaseURL: s.base}); err != nil {
		t.Fatal(err)
	}
	email.Deliveries, push.Deliveries, invite.Invitations, member.Deliveries = s.notes, s.notes, s.notes, s.notes
	s.hooks = app.NewWebhooks(app.WebhooksConfig{Pool: pool, River: s.river, Rooms: s.rooms, BaseURL: s.base})
	hook.Webhooks = s.hooks
	sweeper.Rooms, sweeper.Reminders = s.rooms, s.notes
	deleter.Accounts = s.rooms
	if c.notify {
		if err := s.river.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = s.river.Stop(stop)
		})
	}

	s.app = fiber.New(fiber.Config{DisableStartupMessage: true, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second})
	fiberhttp.LingerOnRefusal(s.app) // as cmd/taasky's app: a refused request's client reads its 431
	s.app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok\n") })
	mcpserver.New(s.rooms, "trust").WithRateLimit(c.rate).Mount(s.app, s.accounts)
	if c.dashboard {
		s.mountDashboard(log, keys, c.oauth)
	}
	served := make(chan struct{})
	go func() { _ = s.app.Listener(ln); close(served) }()
	t.Cleanup(func() {
		_ = s.app.ShutdownWithTimeout(5 * time.Second)
		<-served
	})
	for i := range c.tenants {
		s.addTenant(fmt.Sprintf("t%02d", i))
	}
	return s
}

// newReceiptKeys is a keyring of receipt keys for the service at base.
func newReceiptKeys(base string) (*receipt.Keyring, error) {
	return receipt.NewKeyring(base, 1, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 32) })
}

// tenant is an account with its owner (the human) and one agent, whose
// MCP client keeps every byte the agent receives.
type tenant struct {
	s     *stack
	slug  string
	email string
	user  app.User
	agent app.Agent
	key   string
	keyID int64
	sess  *mcp.ClientSession
	hook  *notifytest.WebhookEndpoint // with notify: an endpoint of the account, for every event
	mu    sync.Mutex
	seen  bytes.Buffer // every response body the agent received
}

func (s *stack) addTenant(slug string) *tenant {
	s.t.Helper()
	tn := &tenant{s: s, slug: slug, email: slug + "@example.test"}
	if _, err := s.accounts.CreateAccount(s.ctx, slug, "Tenant "+slug, tn.email); err != nil {
		s.t.Fatal(err)
	}
	ag, key, err := s.accounts.CreateAgent(s.ctx, slug, "agent", tn.email)
	if err != nil {
		s.t.Fatal(err)
	}
	tn.agent, tn.key, tn.keyID = ag, key.Key, key.ID
	if tn.user, err = s.accounts.UserByEmail(s.ctx, tn.email); err != nil {
		s.t.Fatal(err)
	}
	tn.sess = tn.connect(tn.key)
	if s.push != nil {
		d := s.push.NewDevice(s.t, slug)
		if _, err := s.notes.Subscribe(s.ctx, tn.user.ID, app.PushSubscriptionInput{Endpoint: d.Endpoint, P256dh: d.P256dh,
			Auth: d.Auth, Device: slug}); err != nil {
			s.t.Fatal(err)
		}
		tn.hook = notifytest.NewWebhookEndpoint(s.t)
		var events []string
		for _, e := range app.WebhookEvents {
			events = append(events, string(e))
		}
		_, secret, err := s.hooks.CreateWebhook(s.ctx, tn.user.ID, slug, tn.hook.URL, events)
		if err != nil {
			s.t.Fatal(err)
		}
		tn.hook.SetSecrets(secret)
	}
	s.tenants = append(s.tenants, tn)
	return tn
}

// recorder adds the bearer key and keeps every response body.
type recorder struct {
	key  string
	into func([]byte)
	base http.RoundTripper
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil || r.into == nil {
		return resp, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r.into(b)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, nil
}

var transport = &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}

// connect opens a go-sdk client session to the tenant's MCP URL with key.
func (tn *tenant) connect(key string) *mcp.ClientSession {
	tn.s.t.Helper()
	rec := recorder{key: key, base: transport, into: func(b []byte) {
		tn.mu.Lock()
		tn.seen.Write(b)
		tn.mu.Unlock()
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "trust-" + tn.slug, Version: "1"}, nil)
	sess, err := client.Connect(tn.s.ctx, &mcp.StreamableClientTransport{Endpoint: tn.s.base + "/mcp/" + tn.slug,
		HTTPClient: &http.Client{Transport: rec, Timeout: 60 * time.Second}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		tn.s.t.Fatal(err)
	}
	tn.s.t.Cleanup(func() { _ = sess.Close() })
	return sess
}

// received is every byte the tenant's agent was sent so far.
func (tn *tenant) received() string {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return tn.seen.String()
}

// result is one tool call's answer: the structured result, or the tool
// error's one line.
type result struct {
	out map[string]any
	err string
}

func (r result) str(path ...string) string {
	var v any = r.out
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// callOn calls a tool on a session; a transport failure is returned as err.
func callOn(ctx context.Context, sess *mcp.ClientSession, tool string, args any) (result, error) {
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return result{}, err
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return result{err: strings.Join(texts, "\n")}, nil
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		return result{}, err
	}
	// Every tool answers with the room under "room": its members are
	// read here beside the tool's own (room_token, status, …).
	if room, ok := out["room"].(map[string]any); ok {
		for k, v := range room {
			if _, own := out[k]; !own {
				out[k] = v
			}
		}
	}
	return result{out: out}, nil
}

// call calls a tool as the tenant's agent.
func (tn *tenant) call(tool string, args any) result {
	tn.s.t.Helper()
	r, err := callOn(tn.s.ctx, tn.sess, tool, args)
	if err != nil {
		tn.s.t.Fatalf("%s %s: %v", tn.slug, tool, err)
	}
	return r
}

// must calls a tool that must succeed.
func (tn *tenant) must(tool string, args any) result {
	tn.s.t.Helper()
	r := tn.call(tool, args)
	if r.err != "" {
		tn.s.t.Fatalf("%s %s: %s", tn.slug, tool, r.err)
	}
	return r
}

// roomID is the id of the room a token of the tenant opens.
func (tn *tenant) roomID(token string) int64 {
	tn.s.t.Helper()
	v, err := tn.s.rooms.Read(tn.s.ctx, tn.agent, token)
	if err != nil {
		tn.s.t.Fatal(err)
	}
	return v.RoomID
}

// decide answers the tenant's pending confirmation as its human, through
// the service the dashboard calls.
func (tn *tenant) decide(roomID int64, confirmationID string, hash negotiation.SubjectHash, accept bool) (*app.Decision, error) {
	return tn.s.rooms.DecideAsOwner(tn.s.ctx, tn.user.ID, roomID, confirmationID, hash, accept)
}

// oneTap issues a one-tap token for a confirmation, as the fan-out does.
func (s *stack) oneTap(roomID int64, confirmationID string) string {
	s.t.Helper()
	tok, err := s.rooms.IssueOneTap(s.ctx, s.pool, roomID, confirmationID, "test")
	if err != nil {
		s.t.Fatal(err)
	}
	return tok
}

// pair opens a room by a (schema, limits, opening terms if subject is not
// nil) and joins it by b: it returns both room tokens and the room id.
func (s *stack) pair(a, b *tenant, schema, limitsA, limitsB any, subject any) (string, string, int64) {
	s.t.Helper()
	args := map[string]any{"subject_schema": schema}
	if limitsA != nil {
		args["limits"] = limitsA
	}
	if subject != nil {
		args["subject"] = subject
	}
	open := a.must("negotiation_open", args)
	jargs := map[string]any{"invite_code": open.str("invite_code"), "subject_schema": schema}
	if limitsB != nil {
		jargs["limits"] = limitsB
	}
	join := b.must("negotiation_join", jargs)
	tb := join.str("room_token")
	return open.str("room_token"), tb, b.roomID(tb)
}

// check runs the consistency checker: every room's stored state must be
// the replay of its log.
func (s *stack) check() *app.CheckReport {
	s.t.Helper()
	rep, err := s.rooms.Check(s.ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	if len(rep.Differences) > 0 {
		s.t.Errorf("check: %d of %d rooms differ from their replay:\n%s", len(rep.Differences), rep.Rooms, strings.Join(rep.Differences, "\n"))
	}
	return rep
}

// state is every row a move can change, to show that something changed
// nothing.
func (s *stack) state() string {
	s.t.Helper()
	var out string
	err := s.pool.QueryRow(s.ctx, `SELECT
		(SELECT coalesce(string_agg(id || ':' || seq || ':' || state || ':' || snapshot, '|' ORDER BY id), '') FROM rooms) || '#' ||
		(SELECT coalesce(string_agg(room_id || ':' || seq || ':' || md5(event), '|' ORDER BY room_id, seq), '') FROM room_events) || '#' ||
		(SELECT coalesce(string_agg(room_id || ':' || id || ':' || status, '|' ORDER BY room_id, id), '') FROM confirmations) || '#' ||
		(SELECT count(*)::text FROM parties) || '#' ||
		(SELECT count(*)::text FROM onetap_tokens WHERE used_at IS NOT NULL)`).Scan(&out)
	if err != nil {
		s.t.Fatal(err)
	}
	return out
}
