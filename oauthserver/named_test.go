package oauthserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// TestMissingParametersAreNamed: a request to the token or revocation
// endpoint without one of its required parameters is invalid_request
// (RFC 6749 §5.2, RFC 7009 §2.1) whose description names it, and changes
// nothing. A revocation without token was answered 200, as if a token had
// been revoked; one without client_id blamed the redirect_uri; an exchange
// without code, or a refresh without refresh_token, was invalid_grant ("the
// grant is invalid, expired, revoked…"), naming nothing. A refresh for
// another resource named the granted one twice, and a token used on
// another resource was told its audience as a Go slice.
func TestMissingParametersAreNamed(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_mine")
	post := e.post
	form := "application/x-www-form-urlencoded"
	access, refresh := exchangeCode(t, e, post, "tsc_mine")

	for _, c := range []struct {
		name, path string
		form       url.Values
		field      string
	}{
		{"revocation without token", "/oauth/revoke", url.Values{"client_id": {"tsc_mine"}}, "token"},
		{"revocation with an empty token", "/oauth/revoke", url.Values{"client_id": {"tsc_mine"}, "token": {""}}, "token"},
		{"revocation without client_id", "/oauth/revoke", url.Values{"token": {refresh}}, "client_id"},
		{"exchange without code", "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {"tsc_mine"},
			"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {strings.Repeat("v", 43)}}, "code"},
		{"refresh without refresh_token", "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"tsc_mine"}}, "refresh_token"},
	} {
		status, m := post(http.MethodPost, c.path, form, c.form.Encode())
		desc, _ := m["error_description"].(string)
		if status != 400 || m["error"] != "invalid_request" || !strings.Contains(desc, c.field+": required") {
			t.Errorf("%s: %d %v, want 400 invalid_request naming %s", c.name, status, m, c.field)
		}
	}
	if _, err := e.s.AuthenticateAccessToken(e.ctx, access, "http://taasky.test/mcp/acme"); err != nil {
		t.Errorf("after the refused requests, the access token: %v", err)
	}

	status, m := post(http.MethodPost, "/oauth/token", form, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh},
		"client_id": {"tsc_mine"}, "resource": {"http://taasky.test/mcp/globex"}}.Encode())
	desc, _ := m["error_description"].(string)
	if status != 400 || m["error"] != "invalid_target" || strings.Count(desc, "http://taasky.test/mcp/acme") != 1 {
		t.Errorf("refresh for another resource: %d %v, want invalid_target naming the granted resource once", status, m)
	}
	_, err := e.s.AuthenticateAccessToken(e.ctx, access, "http://taasky.test/mcp/globex")
	if msg := fmt.Sprint(err); app.ErrorCodeOf(err) != app.ErrUnauthorized || strings.ContainsAny(msg, "[]") || !strings.Contains(msg, "http://taasky.test/mcp/acme") {
		t.Errorf("a token on another resource: %v", err)
	}
}

// TestUnknownWellKnownIsNotFound: a document Taasky does not publish under
// /.well-known/ is 404 (a client probing for it, such as OpenID Connect
// discovery or RFC 9728's root document, then looks elsewhere); it was
// 405 "Method Not Allowed" with "Allow: OPTIONS", since the CORS preflight
// took every path there. The preflight of each published document still
// answers.
func TestUnknownWellKnownIsNotFound(t *testing.T) {
	t.Parallel()
	do := mountedWithoutDatabase(t)
	for _, p := range []string{"/.well-known/openid-configuration", "/.well-known/oauth-protected-resource",
		"/.well-known/oauth-authorization-server/mcp/acme", "/.well-known/oauth-protected-resource/mcp/acme/more"} {
		if resp := do(http.MethodGet, p); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d (Allow: %q), want 404", p, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-protected-resource/mcp/acme"} {
		if resp := do(http.MethodOptions, p); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("OPTIONS %s: %d %v, want 204 with CORS", p, resp.StatusCode, resp.Header)
		}
	}
}

// TestUnknownOAuthPathIsNotFound: a path under /oauth/ that is no
// endpoint is 404, and an endpoint asked with another method is 405
// naming the method it takes; each endpoint still answers its CORS
// preflight. The preflight route on every /oauth/ path made Fiber answer
// GET /oauth/anything 405 with "Allow: OPTIONS", GET /oauth/token too.
func TestUnknownOAuthPathIsNotFound(t *testing.T) {
	t.Parallel()
	do := mountedWithoutDatabase(t)
	for _, p := range []string{"/oauth/nope", "/oauth/userinfo", "/oauth/token/more"} {
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			if resp := do(m, p); resp.StatusCode != 404 {
				t.Errorf("%s %s: %d (Allow: %q), want 404", m, p, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	}
	for _, p := range []string{"/oauth/register", "/oauth/token", "/oauth/revoke"} {
		if resp := do(http.MethodGet, p); resp.StatusCode != 405 || !strings.Contains(resp.Header.Get("Allow"), "POST") {
			t.Errorf("GET %s: %d (Allow: %q), want 405 allowing POST", p, resp.StatusCode, resp.Header.Get("Allow"))
		}
		if resp := do(http.MethodOptions, p); resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("OPTIONS %s: %d %v, want 204 with CORS", p, resp.StatusCode, resp.Header)
		}
	}
}

// TestJSONBodyIsNamedAsNotAForm: the token and revocation endpoints take a
// form (RFC 6749 §4.1.3, RFC 7009 §2.1); a client that posts JSON is told
// so, as invalid_request naming the Content-Type, and nothing changes. The
// token endpoint said "The POST body can not be empty" of a body that was
// not, and the revocation endpoint "client_id: required" of a request that
// named it, in JSON.
func TestJSONBodyIsNamedAsNotAForm(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_mine")
	post := e.post
	access, refresh := exchangeCode(t, e, post, "tsc_mine")
	for _, c := range []struct{ path, body string }{
		{"/oauth/token", `{"grant_type":"refresh_token","refresh_token":"` + refresh + `","client_id":"tsc_mine"}`},
		{"/oauth/revoke", `{"token":"` + refresh + `","client_id":"tsc_mine"}`},
	} {
		status, m := post(http.MethodPost, c.path, "application/json", c.body)
		desc, _ := m["error_description"].(string)
		if status != 400 || m["error"] != "invalid_request" || !strings.Contains(desc, "application/x-www-form-urlencoded") ||
			!strings.Contains(desc, "application/json") {
			t.Errorf("%s with a JSON body: %d %v, want 400 invalid_request saying it takes a form, not application/json", c.path, status, m)
		}
	}
	if _, err := e.s.AuthenticateAccessToken(e.ctx, access, "http://taasky.test/mcp/acme"); err != nil {
		t.Errorf("after the refused requests, the access token: %v", err)
	}
	// The refresh token was neither used nor revoked: it still refreshes.
	status, m := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded",
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"tsc_mine"}}.Encode())
	if status != 200 {
		t.Errorf("the refresh token after the refused requests: %d %v", status, m)
	}
}

// TestNotAFormSaysSoInRFC6749Characters: the refusal of a body that is not
// a form is an error_description of RFC 6749 §5.2's characters (printable
// ASCII without '"' and '\'), whatever Content-Type the client sent (it
// echoed the header, quotes and all, and wrote "§"), and the revocation
// endpoint cites its own RFC; a form whose Content-Type has a parameter Go
// cannot read (";charset") is still read as a form, as net/http reads it,
// not refused as "not application/x-www-form-urlencoded".
func TestNotAFormSaysSoInRFC6749Characters(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_mine")
	post := e.post
	_, refresh := exchangeCode(t, e, post, "tsc_mine")
	allowed := regexp.MustCompile(`^[\x20-\x21\x23-\x5B\x5D-\x7E]*$`)
	for _, c := range []struct{ path, ct, rfc string }{
		{"/oauth/token", `application/json; charset="utf-8"`, "RFC 6749"},
		{"/oauth/token", "APPLICATION/JSON; charset=\"\\ü\"", "RFC 6749"},
		{"/oauth/revoke", "application/json", "RFC 7009"},
		{"/oauth/revoke", `text/plain; x="a\"b"`, "RFC 7009"},
	} {
		status, m := post(http.MethodPost, c.path, c.ct, `{"token":"`+refresh+`","client_id":"tsc_mine"}`)
		desc, _ := m["error_description"].(string)
		if status != 400 || m["error"] != "invalid_request" || !allowed.MatchString(desc) || !strings.Contains(desc, c.rfc) ||
			!strings.Contains(desc, "application/x-www-form-urlencoded") {
			t.Errorf("%s with Content-Type %q: %d %q, want 400 invalid_request citing %s in RFC 6749 §5.2's characters", c.path, c.ct, status, desc, c.rfc)
		}
	}
	status, m := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded; charset",
		url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"tsc_mine"}}.Encode())
	if status != 200 {
		t.Errorf("a form whose Content-Type has a bare parameter: %d %v, want it refreshed", status, m)
	}
}

// mountedWithoutDatabase mounts a server that never reaches its database
// (routes, preflights, methods) and returns a way to ask it, its answer's
// body closed.
func mountedWithoutDatabase(t *testing.T) func(method, path string) *http.Response {
	t.Helper()
	s, err := New(Config{BaseURL: "https://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(nil), Accounts: app.NewAccounts(nil)})
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New()
	s.Mount(web)
	return func(method, path string) *http.Response {
		t.Helper()
		resp, err := web.Test(httptest.NewRequest(method, path, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
}
