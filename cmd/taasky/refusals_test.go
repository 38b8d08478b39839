package main

import (
	"crypto/rand"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/metricstest"
)

// TestRefusalsAreCountedNotLoggedEach: requests anyone can send and Taasky
// refuses at its doors (an OAuth token request with a bad client, MCP
// requests with bad bearers) and an agent flooding past its rate limit,
// sent over HTTP to the running process, are each counted on /metrics
// (taasky_requests_refused_total{route,reason}) and logged as a few
// lines with their counts, not a line each: before, every refused token
// request wrote an INFO line (a log an attacker writes at their rate)
// while the bad bearers and the rate limit wrote nothing and counted
// nothing outside the tool calls (which tenant floods was nowhere).
func TestRefusalsAreCountedNotLoggedEach(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	e["MCP_RATE_LIMIT"], e["MCP_RATE_BURST"] = "1", "5"
	p, keys := startDevAgents(t, e)
	key := keys[0] // demo-a's agent
	base := e["BASE_URL"]
	client := &http.Client{Timeout: 20 * time.Second}
	post := func(path, bearer, contentType, body string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && strings.Contains(string(b), `"retry_after"`) {
			return 429 // a tool call told to retry later
		}
		return resp.StatusCode
	}
	const n = 60
	for range n {
		if code := post("/oauth/token", "", "application/x-www-form-urlencoded",
			url.Values{"grant_type": {"authorization_code"}, "code": {"x"}, "client_id": {"nobody"}}.Encode()); code != 401 {
			t.Fatalf("a token request with an unknown client: %d", code)
		}
	}
	limited := 0
	for range n {
		if post("/mcp/demo-a", key, "application/json",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`) == 429 {
			limited++
		}
	}
	badBearers := 0
	for range n {
		raw := make([]byte, 32)
		_, _ = rand.Read(raw)
		if code := post("/mcp/demo-a", "tsk_"+base64.RawURLEncoding.EncodeToString(raw), "application/json", `{}`); code == 401 || code == 429 {
			badBearers++
		}
	}
	if badBearers != n || limited == 0 {
		t.Fatalf("%d of %d bad bearers refused, %d calls past the rate limit", badBearers, n, limited)
	}

	m := metricstest.Scrape(t, base+"/metrics")
	if got := m.Get(t, "taasky_requests_refused_total", "route", "oauth_token", "reason", "invalid_client"); got != n {
		t.Errorf("oauth_token invalid_client refusals = %v, want %d", got, n)
	}
	bearers := m.Get(t, "taasky_requests_refused_total", "route", "mcp", "reason", "bad_bearer") +
		m.Get(t, "taasky_requests_refused_total", "route", "mcp", "reason", "auth_failures")
	if bearers != n {
		t.Errorf("mcp bad_bearer + auth_failures refusals = %v, want %d", bearers, n)
	}
	if got := m.Get(t, "taasky_requests_refused_total", "route", "mcp", "reason", "rate_limit"); got != float64(limited) {
		t.Errorf("mcp rate_limit refusals = %v, want %d", got, limited)
	}

	logs := p.stderr.String()
	for _, c := range []struct {
		line string
		sent int
	}{
		{`msg="oauth token refused"`, n},
		{`msg="MCP requests refused before their agent was known`, n},
		{`msg="an agent's MCP calls are refused: it is past its rate limit`, limited},
	} {
		// One line per 10 s at most: far fewer lines than requests
		// however slowly they went (n of them within 10 s each).
		if lines := strings.Count(logs, c.line); lines == 0 || lines > c.sent/2 {
			t.Errorf("%d lines %s for %d refusals", lines, c.line, c.sent)
		}
	}
	if !regexp.MustCompile(`level=WARN msg="an agent's MCP calls are refused: it is past its rate limit[^\n]*agent_id=\d+[^\n]*account=demo-a[^\n]*reason=rate_limit refused=\d+`).MatchString(logs) {
		t.Errorf("no WARN line names the agent and the account past the rate limit:\n%s", logs)
	}
	if strings.Contains(logs, key) || strings.Contains(logs, "tsk_") {
		t.Errorf("a key in the log:\n%s", logs)
	}
}
