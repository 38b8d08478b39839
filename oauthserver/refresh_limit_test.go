package oauthserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/taasky/taasky/app"

	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/internal/refusals"
)

// TestRefreshesLimitedPerGrant: a grant refreshed past its limit is
// answered 429 too_many_requests with Retry-After, naming the refresh
// token and the limit, and nothing is spent: the refused refresh token and
// the last access token still work (the refresh token at a process whose
// buckets are fresh), and another grant of the same client is not
// slowed. Each refresh keeps its used token 31 days, so without the limit
// a client refreshing in a loop writes rows as fast as it asks.
func TestRefreshesLimitedPerGrant(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "loop-client")
	var err error
	refused := refusals.New(nil)
	if e.s, err = New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: e.state, Accounts: e.accounts,
		RefreshLimit: ratelimit.Limit{Rate: 1.0 / 3600, Burst: 3}, Refusals: refused}); err != nil {
		t.Fatal(err)
	}
	e.post = mounted(t, e.s)
	access, refresh := exchangeCode(t, e, e.post, "loop-client")
	refreshWith := func(post func(method, path, contentType, body string) (int, map[string]any), token string) (int, map[string]any) {
		return post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
			url.Values{"grant_type": {"refresh_token"}, "refresh_token": {token}, "client_id": {"loop-client"}}.Encode())
	}
	// A refresh refused for another reason (a resource the grant is not
	// for) spends none of the burst.
	if status, tok := e.post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {refresh}, "client_id": {"loop-client"}, "resource": {"http://taasky.test/mcp/other"}}.Encode()); status != http.StatusBadRequest || tok["error"] != "invalid_target" {
		t.Fatalf("a refresh for another resource: %d %v, want 400 invalid_target", status, tok)
	}
	for i := range 3 {
		status, tok := refreshWith(e.post, refresh)
		if status != http.StatusOK {
			t.Fatalf("refresh %d within the burst: %d %v", i+1, status, tok)
		}
		access, refresh = tok["access_token"].(string), tok["refresh_token"].(string)
	}
	count := func() (n int) {
		t.Helper()
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM oauth_tokens`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	status, tok := refreshWith(e.post, refresh)
	desc, _ := tok["error_description"].(string)
	if status != http.StatusTooManyRequests || tok["error"] != "too_many_requests" ||
		!strings.Contains(desc, "refresh_token") || !strings.Contains(desc, "3 at once, then 1 every 3600 s") {
		t.Fatalf("the fourth refresh: %d %v, want 429 too_many_requests naming refresh_token and the limit", status, tok)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(refused.Collector())
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sample, err := metricstest.Parse(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := sample.Get(t, "taasky_requests_refused_total", "route", "oauth_token", "reason", "too_many_requests"); n != 1 {
		t.Errorf("the refusal counted %v times, want 1", n)
	}
	if after := count(); after != before {
		t.Errorf("tokens kept: %d before the refused refresh, %d after: it must write nothing", before, after)
	}
	if _, err := e.s.AuthenticateAccessToken(e.ctx, access, "http://taasky.test/mcp/acme"); err != nil {
		t.Errorf("the last access token after a refused refresh: %v", err)
	}
	// The refusal says when to retry (RFC 6585 §4): Retry-After, in whole
	// seconds within the limit's hour.
	web := fiber.New()
	e.s.Mount(web)
	req := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(url.Values{"grant_type": {"refresh_token"},
		"refresh_token": {refresh}, "client_id": {"loop-client"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := web.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if after, err := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusTooManyRequests || err != nil || after < 1 || after > 3600 {
		t.Errorf("a refresh past the limit: %d, Retry-After %q, want 429 with 1 to 3600 s", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	// Another grant of the same client (another consent) has its own bucket.
	_, other := exchangeCode(t, e, e.post, "loop-client")
	if status, tok := refreshWith(e.post, other); status != http.StatusOK {
		t.Errorf("another grant of the same client: %d %v", status, tok)
	}

	// The refused token was not spent: a process with fresh buckets (or
	// this one, later) takes it.
	fresh, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: e.state, Accounts: e.accounts})
	if err != nil {
		t.Fatal(err)
	}
	if status, tok := refreshWith(mounted(t, fresh), refresh); status != http.StatusOK {
		t.Errorf("the refused refresh token later: %d %v, want 200", status, tok)
	}
}

// TestRefreshLimitFollowsTheAccessTokens: the default limit lets a client
// refresh twice as often as its access tokens expire, after a burst of 10.
func TestRefreshLimitFollowsTheAccessTokens(t *testing.T) {
	for _, c := range []struct {
		lifespan time.Duration
		every    string
	}{{0, "10 at once, then 1 every 300 s"}, {time.Minute, "10 at once, then 1 every 30 s"}} {
		s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: &app.OAuth{}, Accounts: &app.Accounts{}, AccessTokenLifespan: c.lifespan})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.refreshesAllowed(); got != c.every {
			t.Errorf("access tokens of %v: %q, want %q", c.lifespan, got, c.every)
		}
	}
}
