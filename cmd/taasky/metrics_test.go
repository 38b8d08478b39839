package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestMetrics: /metrics exports the runtime and the statements sent.
func TestMetrics(t *testing.T) {
	t.Parallel()
	p := start(t, env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret",
	}, "serve")
	status, body := get(t, "http://"+p.addr+"/metrics")
	for _, want := range []string{"taasky_db_statements_total ", "taasky_db_connections_refused_total 0", "go_memstats_alloc_bytes_total", "process_cpu_seconds_total", "taasky_clock_offset_seconds "} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics: %d, no %s", status, want)
		}
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}

// TestClockOffsetWarned: a process whose clock is off PostgreSQL's by
// more than clockOffsetWarned says so at start, with how far, and exports
// it; one within it only exports it.
func TestClockOffsetWarned(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		offset time.Duration
		warned bool
	}{{30 * time.Second, true}, {-30 * time.Second, true}, {time.Second, false}} {
		m := newMetrics()
		var logged strings.Builder
		m.clockOffset(c.offset, slog.New(slog.NewJSONHandler(&logged, nil)))
		if got := strings.Contains(logged.String(), "clock is off PostgreSQL's"); got != c.warned {
			t.Errorf("%s off: warned %v, want %v (%s)", c.offset, got, c.warned, logged.String())
		}
		if c.warned && !strings.Contains(logged.String(), fmt.Sprintf(`"offset_seconds":%g`, c.offset.Seconds())) {
			t.Errorf("%s off: the warning does not say how far: %s", c.offset, logged.String())
		}
		families, err := m.registry.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var value *float64
		for _, f := range families {
			if f.GetName() == "taasky_clock_offset_seconds" {
				v := f.GetMetric()[0].GetGauge().GetValue()
				value = &v
			}
		}
		if value == nil || *value != c.offset.Seconds() {
			t.Errorf("%s off: taasky_clock_offset_seconds %v, want %g", c.offset, value, c.offset.Seconds())
		}
	}
}

// TestMetricsCountBatchedStatements: a batch is one round trip but each of
// its statements counts.
func TestMetricsCountBatchedStatements(t *testing.T) {
	t.Parallel()
	m := newMetrics()
	pool, err := openDatabase(context.Background(), pgtest.NewDSN(t), m)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	before := m.statements.Load() // the migration's
	var b pgx.Batch
	for range 3 {
		b.Queue(`SELECT 1`)
	}
	if err := pool.SendBatch(context.Background(), &b).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if n := m.statements.Load() - before; n != 4 {
		t.Errorf("statements counted: %d, want 4", n)
	}
}

// TestMetricsCountCallsAndJobs: after real MCP calls to `taasky serve`, and
// the invitation job they caused, /metrics has moved by exactly those.
func TestMetricsCountCallsAndJobs(t *testing.T) {
	t.Parallel()
	e := env{
		"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret",
	}
	if _, _, err := runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Helper", "--owner-email", "alice@example.test", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var agent struct{ Key string }
	if err := json.Unmarshal([]byte(out), &agent); err != nil {
		t.Fatal(err)
	}
	p := start(t, e, "serve")
	metricsURL := "http://" + p.addr + "/metrics"
	before := metricstest.Scrape(t, metricsURL)
	if v := before.Get(t, "taasky_mcp_calls_total", "tool", "negotiation_open", "outcome", "ok"); v != 0 {
		t.Fatalf("negotiation_open counted %v before any call", v)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "metrics-test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + p.addr + "/mcp/acme",
		HTTPClient: &http.Client{Transport: bearer(agent.Key), Timeout: 20 * time.Second}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": json.RawMessage(`{"place":{"type":"enum","label":"Where","values":["office","video"]}}`),
		"invite_email":   "pat@example.test"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %v %+v", err, res)
	}
	for range 2 {
		res, err = session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_read", Arguments: map[string]any{}})
		if err != nil || !res.IsError {
			t.Fatalf("negotiation_read without a room_token: %v %+v", err, res)
		}
	}

	// The invitation job runs after the open's commit: wait until it is
	// counted, then check that nothing else was.
	var after metricstest.Sample
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		after = metricstest.Scrape(t, metricsURL)
		if v, _ := after.Value("taasky_jobs_total", "kind", "notify_invite", "outcome", "completed"); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the invitation job is not counted after 15 s:\n%s", p.stderr.String())
		}
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"taasky_mcp_calls_total", []string{"tool", "negotiation_open", "outcome", "ok"}, 1},
		{"taasky_mcp_calls_total", []string{"tool", "negotiation_read", "outcome", "refused"}, 2},
		{"taasky_mcp_calls_total", []string{"tool", "negotiation_read", "outcome", "ok"}, 0},
		{"taasky_mcp_calls_total", []string{"tool", "negotiation_open", "outcome", "internal_error"}, 0},
		{"taasky_mcp_call_duration_seconds_count", []string{"tool", "negotiation_read"}, 2},
		{"taasky_job_duration_seconds_count", []string{"kind", "notify_invite"}, 1},
	} {
		if got := after.Get(t, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, o := range []string{"retried", "discarded", "cancelled", "snoozed", "interrupted"} {
		if v, _ := after.Value("taasky_jobs_total", "kind", "notify_invite", "outcome", o); v != 0 {
			t.Errorf("the invitation job also counted %v %s", v, o)
		}
	}
	if st := after.Get(t, "taasky_db_statements_total"); st <= before.Get(t, "taasky_db_statements_total") {
		t.Errorf("statements: %v before the calls, %v after", before.Get(t, "taasky_db_statements_total"), st)
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
}
