package oauthserver

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestGeneralTokenAtItsAccountsURL: a client that names no resource (MCP
// 2025-03-26 has no resource metadata) gets a token for /mcp, which acts
// for the agent the person connected in the account they chose: it is
// taken at /mcp and at that account's URL, where the person may have
// pasted it, and refused at another account's, naming the agent's account;
// a token for /mcp/acme is still refused at /mcp.
func TestGeneralTokenAtItsAccountsURL(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "old-client")
	if _, err := e.accounts.CreateAccount(e.ctx, "globex", "Globex", "gus@example.test"); err != nil {
		t.Fatal(err)
	}
	general := generalToken(t, e, e.alice.ID)
	for _, resource := range []string{"http://taasky.test/mcp", "http://taasky.test/mcp/acme"} {
		if ag, err := e.s.AuthenticateAccessToken(e.ctx, general, resource); err != nil || ag.AccountSlug != "acme" {
			t.Errorf("the token for /mcp at %s: %+v %v, want acme's agent", resource, ag, err)
		}
	}
	_, err := e.s.AuthenticateAccessToken(e.ctx, general, "http://taasky.test/mcp/globex")
	if app.ErrorCodeOf(err) != app.ErrUnauthorized || !strings.Contains(err.Error(), `its agent is in account "acme"`) {
		t.Errorf("the token for /mcp at globex's URL: %v, want unauthorized naming acme", err)
	}
	specific, _ := exchangeCode(t, e, e.post, "old-client")
	if _, err := e.s.AuthenticateAccessToken(e.ctx, specific, "http://taasky.test/mcp"); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("a token for /mcp/acme at /mcp: %v, want unauthorized", err)
	}
}

// TestExpiredAccessTokenIsRefused: an access token past its lifespan is
// refused at the door, told to refresh; one Taasky never issued is told
// it is not valid.
func TestExpiredAccessTokenIsRefused(t *testing.T) {
	t.Parallel()
	e := newAcme(t)
	var err error
	if e.s, err = New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: e.state, Accounts: e.accounts,
		AccessTokenLifespan: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.state.SaveClient(e.ctx, app.OAuthClient{ID: "c", Kind: app.OAuthClientRegistered, Name: "C",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb"}}); err != nil {
		t.Fatal(err)
	}
	access, _ := exchangeCode(t, e, mounted(t, e.s), "c")
	// fosite rounds a token's expiry to the second (flow_authorize_code_token.go):
	// issued with a 1-ns life, it is valid for up to half a second more.
	time.Sleep(time.Second)
	ag, err := e.s.AuthenticateAccessToken(e.ctx, access, "http://taasky.test/mcp/acme")
	if app.ErrorCodeOf(err) != app.ErrUnauthorized || !strings.Contains(err.Error(), "expired; refresh it") {
		t.Errorf("an expired access token: %+v %v, want unauthorized, told to refresh", ag, err)
	}
	ag, err = e.s.AuthenticateAccessToken(e.ctx, "ory_at_never.issued", "http://taasky.test/mcp/acme")
	if app.ErrorCodeOf(err) != app.ErrUnauthorized || !strings.Contains(err.Error(), "is not valid") {
		t.Errorf("a token never issued: %+v %v, want unauthorized, not valid", ag, err)
	}
}

// TestGeneralTokenOfAMemberWhoLeft: a token for /mcp whose person has left
// the account is refused at the account's own URL as at /mcp, not taken
// there for the agent that no longer acts for anyone.
func TestGeneralTokenOfAMemberWhoLeft(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "old-client")
	if err := e.accounts.AddMemberAsOperator(e.ctx, "acme", "bob@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	bob, err := e.accounts.UserByEmail(e.ctx, "bob@example.test")
	if err != nil {
		t.Fatal(err)
	}
	general := generalToken(t, e, bob.ID)
	if _, err := e.s.AuthenticateAccessToken(e.ctx, general, "http://taasky.test/mcp/acme"); err != nil {
		t.Fatalf("bob's token for /mcp at acme's URL: %v", err)
	}
	if err := e.accounts.RemoveMemberAsOperator(e.ctx, "acme", "bob@example.test"); err != nil {
		t.Fatal(err)
	}
	for _, resource := range []string{"http://taasky.test/mcp", "http://taasky.test/mcp/acme"} {
		if ag, err := e.s.AuthenticateAccessToken(e.ctx, general, resource); app.ErrorCodeOf(err) != app.ErrUnauthorized {
			t.Errorf("the token of a member who left, at %s: %+v %v, want unauthorized", resource, ag, err)
		}
	}
}

// TestDatabaseFailureIsNotInvalidClient: when Taasky cannot read the
// client for a reason other than the database being away (here its pool
// closed, as at a shutdown), the token and revocation endpoints answer
// 500 server_error, never 401 invalid_client: on that answer an MCP
// client throws its registration and tokens away and asks its person to
// connect again (fosite makes any failure of GetClient invalid_client).
func TestDatabaseFailureIsNotInvalidClient(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "c")
	_, refresh := exchangeCode(t, e, e.post, "c")
	e.pool.Close()
	status, body := e.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	if status != http.StatusInternalServerError || body["error"] != "server_error" {
		t.Errorf("a refresh while the database failed: %d %v, want 500 server_error", status, body)
	}
	status, body = e.post(http.MethodPost, "/oauth/revoke", "application/x-www-form-urlencoded", url.Values{"token": {refresh}, "client_id": {"c"}}.Encode())
	if status != http.StatusInternalServerError || body["error"] != "server_error" {
		t.Errorf("a revocation while the database failed: %d %v, want 500 server_error", status, body)
	}
}

// TestTokenOfBytesNoDatabaseHolds: a code, refresh token or token to
// revoke whose signature (the part after its dot, the client's to send)
// holds a NUL or bytes that are no UTF-8 is no code or token Taasky
// issued: refused invalid_grant (revoked: nothing to do, 200), never the
// 500 server_error of PostgreSQL refusing the query, nor a 503 telling
// the client to retry what will never succeed.
func TestTokenOfBytesNoDatabaseHolds(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "c")
	_, refresh := exchangeCode(t, e, e.post, "c")
	for _, sig := range []string{"\x00", "\xff", "a\x00b", "c\xc3", strings.Repeat("\x00", 10000)} {
		_, verifier := pkceS256()
		for _, form := range []url.Values{
			{"grant_type": {"refresh_token"}, "refresh_token": {"x." + sig}, "client_id": {"c"}},
			{"grant_type": {"authorization_code"}, "code": {"x." + sig}, "client_id": {"c"},
				"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}},
		} {
			if status, body := e.token(form); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
				t.Errorf("%s of signature %.20q: %d %v, want 400 invalid_grant", form.Get("grant_type"), sig, status, body)
			}
		}
		for _, hint := range []string{"", "access_token", "refresh_token"} {
			form := url.Values{"token": {"x." + sig}, "client_id": {"c"}}
			if hint != "" {
				form.Set("token_type_hint", hint)
			}
			if status, body := e.post(http.MethodPost, "/oauth/revoke", "application/x-www-form-urlencoded", form.Encode()); status != http.StatusOK {
				t.Errorf("revoking signature %.20q (hint %q): %d %v, want 200", sig, hint, status, body)
			}
		}
	}
	// Nor is such a bearer at the door an internal error (the MCP door's 500).
	for _, sig := range []string{"\xff", "a\x00b"} {
		if _, err := e.s.AuthenticateAccessToken(e.ctx, "x."+sig, "http://taasky.test/mcp/acme"); app.ErrorCodeOf(err) != app.ErrUnauthorized {
			t.Errorf("a bearer of signature %q: %v, want unauthorized", sig, err)
		}
	}
	// The grant is untouched.
	if status, body := e.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"c"}}); status != http.StatusOK {
		t.Errorf("the grant's refresh token after: %d %v", status, body)
	}
}

// generalToken is an access token for /mcp (an authorization that named no
// resource, as an MCP 2025-03-26 client asks) that person userID granted
// old-client in acme.
func generalToken(t *testing.T, e acme, userID int64) string {
	t.Helper()
	verifier, challenge := pkceS256()
	loc, err := e.s.Approve(e.ctx, url.Values{"response_type": {"code"}, "client_id": {"old-client"}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}}, userID, "acme")
	u, _ := url.Parse(loc)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("approve without a resource: %q %v", loc, err)
	}
	status, tok := e.token(url.Values{"grant_type": {"authorization_code"}, "code": {u.Query().Get("code")},
		"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}})
	general, _ := tok["access_token"].(string)
	if status != http.StatusOK || general == "" {
		t.Fatalf("token: %d %v", status, tok)
	}
	return general
}
