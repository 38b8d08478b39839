package oauthserver

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestTokenEndpointsWhenTheDatabaseFails: with the database gone (every
// connection ended, none accepted) or too slow (the OAuth tables locked
// past the operator's statement_timeout), a refresh, a code exchange and
// a revocation are each answered 503 temporarily_unavailable with
// Retry-After, never invalid_client or invalid_grant (a client would throw
// its registration or tokens away) nor a 500; the refresh token is not
// spent: once the database answers, it refreshes. The failure is logged
// as the other doors log it (app.RetryLogged): the database away at
// WARN, a statement past the operator's timeout at ERROR.
func TestTokenEndpointsWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"outage", "statement timeout"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			e := acmeWithClient(t, "tsc_fails")
			access, refresh := exchangeCode(t, e, e.post, "tsc_fails")
			code, verifier := approveCode(t, e, "tsc_fails")
			var logged bytes.Buffer
			e.s.log = slog.New(slog.NewTextHandler(&logged, nil))
			var back func()
			if fault == "outage" {
				back = pgtest.Outage(t, e.pool)
			} else {
				back = pgtest.HoldLock(t, e.pool, `LOCK TABLE oauth_clients, oauth_tokens, oauth_agents IN ACCESS EXCLUSIVE MODE`).Release
				pgtest.StatementTimeout(t, e.pool, 200*time.Millisecond)
			}
			for _, c := range []struct {
				path string
				form url.Values
			}{
				{"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"tsc_fails"}}},
				{"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
					"code_verifier": {verifier}, "client_id": {"tsc_fails"}}},
				{"/oauth/revoke", url.Values{"token": {access}, "client_id": {"tsc_fails"}}},
			} {
				status, m := e.post(http.MethodPost, c.path, "application/x-www-form-urlencoded", c.form.Encode())
				if status != http.StatusServiceUnavailable || m["error"] != "temporarily_unavailable" {
					t.Errorf("%s %s with the database failing: %d %v; want 503 temporarily_unavailable", c.path, c.form.Get("grant_type"), status, m)
				}
			}
			checkLevel(t, fault, logged.String())
			back()
			if status, m := e.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}); status != http.StatusOK {
				t.Errorf("the refresh once the database is back: %d %v", status, m)
			}
		})
	}
}

// TestDocumentsAndRegistrationWhenTheDatabaseFails: with the database gone
// or too slow, an account's resource metadata (RFC 9728, what an MCP
// client reads first) and a registration are answered 503 with
// Retry-After, as every other request the database could not take; they
// said neither when to come back. Nothing is registered.
func TestDocumentsAndRegistrationWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"outage", "statement timeout"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			e := newAcme(t)
			var logged bytes.Buffer
			e.s.log = slog.New(slog.NewTextHandler(&logged, nil))
			web := fiber.New()
			e.s.Mount(web)
			send := func(method, path, body string) *http.Response {
				t.Helper()
				r := httptest.NewRequest(method, path, strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				resp, err := web.Test(r, -1)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp
			}
			const doc = "/.well-known/oauth-protected-resource/mcp/acme"
			const registration = `{"client_name":"Agent","redirect_uris":["http://127.0.0.1:9999/cb"]}`
			var back func()
			if fault == "outage" {
				back = pgtest.Outage(t, e.pool)
			} else {
				back = pgtest.HoldLock(t, e.pool, `LOCK TABLE accounts, oauth_clients IN ACCESS EXCLUSIVE MODE`).Release
				pgtest.StatementTimeout(t, e.pool, 200*time.Millisecond)
			}
			for _, c := range []struct{ method, path, body string }{
				{http.MethodGet, doc, ""}, {http.MethodHead, doc, ""}, {http.MethodPost, "/oauth/register", registration},
			} {
				if resp := send(c.method, c.path, c.body); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "5" {
					t.Errorf("%s %s with the database failing: %d, Retry-After %q; want 503 and 5", c.method, c.path, resp.StatusCode, resp.Header.Get("Retry-After"))
				}
			}
			checkLevel(t, fault, logged.String())
			back()
			var n int
			if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM oauth_clients`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%d clients registered (%v)", n, err)
			}
			if resp := send(http.MethodGet, doc, ""); resp.StatusCode != http.StatusOK {
				t.Errorf("GET %s once the database is back: %d", doc, resp.StatusCode)
			}
		})
	}
}

// checkLevel: the lines logged while the database failed by fault are at
// app.RetryLogged's level for it, WARN for an outage and ERROR for a
// statement timeout, and none at the other.
func checkLevel(t *testing.T, fault, logged string) {
	t.Helper()
	want, not := "level=WARN", "level=ERROR"
	if fault == "statement timeout" {
		want, not = not, want
	}
	if strings.Contains(logged, not) || !strings.Contains(logged, want) {
		t.Errorf("%s: want every line at %s:\n%s", fault, want, logged)
	}
}
