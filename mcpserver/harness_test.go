package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// env is a Taasky MCP endpoint on 127.0.0.1 with two accounts, each with an
// agent, and a go-sdk client session per agent.
type env struct {
	ctx      context.Context
	pool     *pgxpool.Pool
	rooms    *app.Rooms
	river    *river.Client[pgx.Tx]
	accounts *app.Accounts
	url      string
	agents   map[string]app.Agent // "a", "b"
	keys     map[string]string
	sessions map[string]*mcp.ClientSession
	// seen records every byte each agent received, to search for secrets.
	mu   sync.Mutex
	seen map[string]*bytes.Buffer
	// clock is the service's time, in unix nanoseconds; tests move it.
	clock *atomic.Int64
	// logs is what the server logged, as JSON lines; its metrics are served
	// at url + "/metrics".
	logs *logBuffer
}

// logBuffer is a bytes.Buffer that the server's requests may write at once.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// setup starts the endpoint; opts change the rooms' configuration.
func setup(t testing.TB, opts ...func(*app.RoomsConfig)) *env {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	clock := &atomic.Int64{}
	clock.Store(time.Now().UnixNano())
	cfg := app.RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{1}, 32),
		TokenKey: bytes.Repeat([]byte{2}, 32), BaseURL: base, Now: func() time.Time { return time.Unix(0, clock.Load()) },
		Receipts: testReceiptKeys(t, base)}
	for _, o := range opts {
		o(&cfg)
	}
	rooms, err := app.NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	e := &env{ctx: ctx, pool: pool, rooms: rooms, river: rc, accounts: app.NewAccounts(pool), url: base, logs: &logBuffer{},
		clock: clock, agents: map[string]app.Agent{}, keys: map[string]string{}, sessions: map[string]*mcp.ClientSession{}, seen: map[string]*bytes.Buffer{}}
	for side, slug := range map[string]string{"a": "alpha", "b": "beta"} {
		email := slug + "@example.test"
		if _, err := e.accounts.CreateAccount(ctx, slug, slug, email); err != nil {
			t.Fatal(err)
		}
		ag, key, err := e.accounts.CreateAgent(ctx, slug, "agent", email)
		if err != nil {
			t.Fatal(err)
		}
		e.agents[side], e.keys[side], e.seen[side] = ag, key.Key, &bytes.Buffer{}
	}
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	metrics, registry := NewMetrics(), prometheus.NewRegistry()
	registry.MustRegister(metrics)
	web.Get("/metrics", fiberhttp.Handler(promhttp.HandlerFor(registry, promhttp.HandlerOpts{})))
	// The process hears room changes, as the service's does (a waiting read).
	lctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go app.Listen(lctx, pool.Config().ConnConfig.Copy(), slog.New(slog.DiscardHandler), rooms.RoomChanges(nil))
	New(rooms, "test").WithLogger(slog.New(slog.NewJSONHandler(e.logs, nil))).WithMetrics(metrics).Mount(web, e.accounts)
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	for side := range e.agents {
		e.sessions[side] = e.connect(t, side, e.keys[side])
	}
	return e
}

// recorder adds the bearer key and keeps every response body.
type recorder struct {
	key  string
	into func([]byte)
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if r.key != "" {
		req.Header.Set("Authorization", "Bearer "+r.key)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || r.into == nil {
		return resp, err
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	r.into(buf.Bytes())
	resp.Body = ioNopCloser{bytes.NewReader(buf.Bytes())}
	return resp, nil
}

type ioNopCloser struct{ *bytes.Reader }

func (ioNopCloser) Close() error { return nil }

func (e *env) connect(t testing.TB, side, key string) *mcp.ClientSession {
	t.Helper()
	slug := e.agents[side].AccountSlug
	rec := recorder{key: key, into: func(b []byte) {
		e.mu.Lock()
		e.seen[side].Write(b)
		e.mu.Unlock()
	}}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent-" + side, Version: "1"}, nil)
	s, err := client.Connect(e.ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp/" + slug,
		HTTPClient: &http.Client{Transport: rec, Timeout: 30 * time.Second}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// call calls a tool as side; it returns the structured result, or the
// tool error's text.
func (e *env) call(t *testing.T, side, tool string, args any) (map[string]any, string) {
	t.Helper()
	res, err := e.sessions[side].CallTool(e.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %s: %v", side, tool, err)
	}
	if res.IsError {
		return nil, res.Content[0].(*mcp.TextContent).Text
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, ""
}

// must calls a tool that must succeed.
func (e *env) must(t *testing.T, side, tool string, args any) map[string]any {
	t.Helper()
	out, msg := e.call(t, side, tool, args)
	if msg != "" {
		t.Fatalf("%s %s: %s", side, tool, msg)
	}
	return out
}

// confirm answers side's pending confirmation as its human (the web and
// email doors come with their own issues; this is the same service call).
func (e *env) confirm(t *testing.T, side, token string, res map[string]any, accept bool) *app.Decision {
	t.Helper()
	c := res["room"].(map[string]any)["pending_confirmation"].(map[string]any)
	v, err := e.rooms.Read(e.ctx, e.agents[side], token)
	if err != nil {
		t.Fatal(err)
	}
	hash, _ := c["subject_hash"].(string)
	d, err := e.rooms.DecideAsOwner(e.ctx, e.agents[side].OwnerUserID, v.RoomID, c["id"].(string), negotiation.SubjectHash(hash), accept)
	if err != nil {
		t.Fatalf("%s's human: %v", side, err)
	}
	return d
}

func (e *env) check(t *testing.T) {
	t.Helper()
	rep, err := e.rooms.Check(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) > 0 {
		t.Fatalf("check: %s", strings.Join(rep.Differences, "\n"))
	}
}
