package mcpserver

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/taasky/taasky/internal/fiberhttp"

	"github.com/taasky/taasky/internal/metricstest"
)

// TestToolCallsCounted: /metrics counts each tool call by tool and outcome,
// with its latency, from zero: every tool's series is there before its
// first call.
func TestToolCallsCounted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	before := metricstest.Scrape(t, e.url+"/metrics")
	for _, tool := range []string{"negotiation_open", "negotiation_join", "negotiation_list", "negotiation_read",
		"negotiation_propose", "negotiation_respond", "negotiation_cancel"} {
		for _, o := range []string{"ok", "refused", "internal_error"} {
			if v := before.Get(t, "taasky_mcp_calls_total", "tool", tool, "outcome", o); v != 0 {
				t.Errorf("%s %s before any call: %v", tool, o, v)
			}
		}
		if v := before.Get(t, "taasky_mcp_call_duration_seconds_count", "tool", tool); v != 0 {
			t.Errorf("%s latency count before any call: %v", tool, v)
		}
	}

	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	token := open["room_token"].(string)
	e.must(t, "a", "negotiation_read", map[string]any{"room_token": token})
	e.must(t, "a", "negotiation_read", map[string]any{"room_token": token})
	if _, msg := e.call(t, "a", "negotiation_read", map[string]any{}); msg != "room_token: required" {
		t.Fatalf("read without a token: %q", msg)
	}
	if _, msg := e.call(t, "a", "negotiation_propose", map[string]any{"room_token": token, "verdict": "haggle"}); msg == "" {
		t.Fatal("a verdict that does not exist was taken")
	}
	e.must(t, "b", "negotiation_list", map[string]any{})

	after := metricstest.Scrape(t, e.url+"/metrics")
	want := map[[2]string]float64{
		{"negotiation_open", "ok"}: 1, {"negotiation_read", "ok"}: 2, {"negotiation_read", "refused"}: 1,
		{"negotiation_propose", "refused"}: 1, {"negotiation_list", "ok"}: 1,
	}
	counts := map[string]float64{}
	for _, tool := range []string{"negotiation_open", "negotiation_join", "negotiation_list", "negotiation_read",
		"negotiation_propose", "negotiation_respond", "negotiation_cancel"} {
		for _, o := range []string{"ok", "refused", "internal_error"} {
			got := after.Get(t, "taasky_mcp_calls_total", "tool", tool, "outcome", o)
			if got != want[[2]string{tool, o}] {
				t.Errorf("taasky_mcp_calls_total{tool=%q,outcome=%q} = %v, want %v", tool, o, got, want[[2]string{tool, o}])
			}
			counts[tool] += got
		}
		if got := after.Get(t, "taasky_mcp_call_duration_seconds_count", "tool", tool); got != counts[tool] {
			t.Errorf("%s: %v latencies for %v calls", tool, got, counts[tool])
		}
		if inf := after.Get(t, "taasky_mcp_call_duration_seconds_bucket", "tool", tool, "le", "+Inf"); inf != counts[tool] {
			t.Errorf("%s: +Inf bucket %v for %v calls", tool, inf, counts[tool])
		}
	}
	if sum := after.Get(t, "taasky_mcp_call_duration_seconds_sum", "tool", "negotiation_open"); sum <= 0 || sum > 30 {
		t.Errorf("negotiation_open took %v s in all", sum)
	}
}

// TestToolCallsToldToRetryCounted: a tool call answered "retry after" before
// its tool ran (here past the agent's rate limit) is counted as not_now for
// its tool, without a latency; a name that is no tool makes no series.
func TestToolCallsToldToRetryCounted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	metrics, registry := NewMetrics(), prometheus.NewRegistry()
	registry.MustRegister(metrics)
	web.Get("/metrics", fiberhttp.Handler(promhttp.HandlerFor(registry, promhttp.HandlerOpts{})))
	New(e.rooms, "test").WithRateLimit(RateLimit{Rate: 0.001, Burst: 1}).WithMetrics(metrics).Mount(web, e.accounts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	base := "http://" + ln.Addr().String()
	call := func(tool string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp/"+e.agents["a"].AccountSlug, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+e.keys["a"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if v := metricstest.Scrape(t, base+"/metrics").Get(t, "taasky_mcp_calls_total", "tool", "negotiation_list", "outcome", "not_now"); v != 0 {
		t.Fatalf("not_now before any call: %v", v)
	}
	call("negotiation_list") // the burst's one token: answered by the tool
	call("negotiation_list")
	call("negotiation_list")
	call("no_such_tool")
	after := metricstest.Scrape(t, base+"/metrics")
	if v := after.Get(t, "taasky_mcp_calls_total", "tool", "negotiation_list", "outcome", "not_now"); v != 2 {
		t.Errorf("negotiation_list not_now = %v, want 2", v)
	}
	if v := after.Get(t, "taasky_mcp_call_duration_seconds_count", "tool", "negotiation_list"); v != 1 {
		t.Errorf("negotiation_list latencies = %v, want 1 (the call the tool answered)", v)
	}
	if _, ok := after.Value("taasky_mcp_calls_total", "tool", "no_such_tool", "outcome", "not_now"); ok {
		t.Error("a name that is no tool made a series")
	}
}
