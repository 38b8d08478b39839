package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestWorkerOnlyServesProbesAndMetrics: `serve --web=false` listens on
// LISTEN_ADDR and answers /healthz, /readyz and /metrics (with the sweep's
// jobs counted: the series operators watch), and nothing else: no
// dashboard, no MCP, no OAuth; its listener closes when it stops.
func TestWorkerOnlyServesProbesAndMetrics(t *testing.T) {
	t.Parallel()
	p := start(t, env{ // no OIDC_*: a worker does not need them
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret,
	}, "serve", "--web=false")
	base := "http://" + p.addr
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		if status, body := get(t, base+path); status != 200 || body != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, status, body, want)
		}
	}
	// The elected leader inserts the sweep about every second: wait until
	// this process has worked one, as Prometheus would see it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if v, _ := metricstest.Scrape(t, base+"/metrics").Value("taasky_jobs_total", "kind", "sweep_due", "outcome", "completed"); v >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics counts no completed sweep_due job 30 s after the start:\n%s", p.stderr.String())
		}
	}
	if status, body := get(t, base+"/metrics"); status != 200 || !strings.Contains(body, "taasky_db_statements_total ") || !strings.Contains(body, "go_memstats_alloc_bytes_total") {
		t.Errorf("/metrics: %d, lacks the process's own series", status)
	} else if strings.Contains(body, "taasky_mcp_calls_total{") {
		t.Error("/metrics of a worker-only process has MCP call series (docs/operations.md: none)")
	}
	for _, r := range []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/login"}, {"POST", "/mcp/acme"}, {"POST", "/mcp"}, {"GET", "/rooms"},
		{"GET", "/admin/jobs"}, {"GET", "/.well-known/oauth-authorization-server"}, {"POST", "/oauth/token"},
		{"GET", "/debug/pprof/"}, {"GET", "/static/app.css"},
	} {
		req, _ := http.NewRequest(r.method, base+r.path, strings.NewReader(`{}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", r.method, r.path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %s on a worker-only process: %d, want 404", r.method, r.path, resp.StatusCode)
		}
	}
	if err := p.stop(); err != nil {
		t.Fatalf("serve --web=false returned %v after its context ended", err)
	}
	if c, err := net.Dial("tcp", p.addr); err == nil {
		c.Close()
		t.Error("the worker's listener still accepts after serve returned")
	}
}

// TestWorkerReadyzIsRivers: a worker-only process is ready when River works
// its jobs and the database answers: not before River started, and not
// once the shutdown began.
func TestWorkerReadyzIsRivers(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load(env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret,
	}.get, config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(io.Discard, true), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	probes, err := srv.webApp(t.Context())
	if err != nil || probes == nil {
		t.Fatalf("a worker-only process's app: %v, %v", probes, err)
	}
	readyz := func() (int, string) {
		t.Helper()
		resp, err := probes.Test(httptest.NewRequest(http.MethodGet, "/readyz", nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if st, body := readyz(); st != http.StatusServiceUnavailable || body != "the job workers are not running\n" {
		t.Errorf("/readyz before River started: %d %q", st, body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, probes, func(a string) { addr <- a }) }()
	base := "http://" + <-addr
	if st, body := get(t, base+"/readyz"); st != 200 || body != "ready\n" {
		t.Errorf("/readyz with River working: %d %q", st, body)
	}
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not return")
	}
	if st, body := readyz(); st != http.StatusServiceUnavailable || body != "shutting down\n" {
		t.Errorf("/readyz after the shutdown: %d %q", st, body)
	}
	srv.health.stopping.Store(false) // as if no shutdown: River stopped all the same
	if st, body := readyz(); st != http.StatusServiceUnavailable || body != "the job workers are not running\n" {
		t.Errorf("/readyz with River stopped: %d %q", st, body)
	}
}

// TestWebOnlyUnchanged: `serve --worker=false` still serves the dashboard,
// the MCP endpoint and the probes on LISTEN_ADDR, ready without River
// working there.
func TestWebOnlyUnchanged(t *testing.T) {
	t.Parallel()
	p := start(t, env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret",
	}, "serve", "--worker=false")
	base := "http://" + p.addr
	for path, want := range map[string]string{"/healthz": "ok\n", "/readyz": "ready\n"} {
		if status, body := get(t, base+path); status != 200 || body != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, status, body, want)
		}
	}
	if status, body := get(t, base+"/metrics"); status != 200 || !strings.Contains(body, "taasky_mcp_calls_total{") {
		t.Errorf("/metrics: %d, no MCP call series", status)
	}
	if status, _ := get(t, base+"/.well-known/oauth-authorization-server"); status != 200 {
		t.Errorf("the OAuth metadata: %d", status)
	}
	resp, err := http.Post(base+"/mcp/acme", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /mcp/acme without a key: %d, want 401", resp.StatusCode)
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestWorkerListensUntilItsJobsFinish: on the signal a worker-only process
// turns /readyz 503 at once, but its listener stays open, /healthz and
// /metrics answering, while River finishes a running job; it closes once
// the job is done and River stopped.
func TestWorkerListensUntilItsJobsFinish(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDSN(t)
	cfg, err := config.Load(env{
		"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "SHUTDOWN_GRACE": "0",
	}.get, config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(io.Discard, true), false, true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.close()
	probes, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The sweep reads rooms: with the table locked, the first sweep runs
	// until the lock goes.
	db, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	lock, err := db.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Rollback(context.Background()) }()
	if _, err := lock.Exec(t.Context(), `LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, probes, func(a string) { addr <- a }) }()
	base := "http://" + <-addr
	watch, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(context.Background())
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var running int
		if err := watch.QueryRow(t.Context(), `SELECT count(*) FROM river_job WHERE kind = 'sweep_due' AND state = 'running'`).Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no sweep running 30 s after the start")
		}
	}

	cancel()
	for !srv.health.stopping.Load() {
		select {
		case err := <-served:
			t.Fatalf("serve returned with a job running: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if st, body := get(t, base+"/readyz"); st != http.StatusServiceUnavailable || body != "shutting down\n" {
		t.Errorf("/readyz while the worker drains: %d %q, want 503", st, body)
	}
	if st, _ := get(t, base+"/healthz"); st != http.StatusOK {
		t.Errorf("/healthz while the worker drains: %d, want 200", st)
	}
	if st, _ := get(t, base+"/metrics"); st != http.StatusOK {
		t.Errorf("/metrics while the worker drains: %d, want 200", st)
	}
	select {
	case err := <-served:
		t.Fatalf("serve returned with a job running: %v", err)
	default:
	}

	if err := lock.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not return once its job could finish")
	}
	if c, err := net.Dial("tcp", base[len("http://"):]); err == nil {
		c.Close()
		t.Error("the listener still accepts after serve returned")
	}
}
