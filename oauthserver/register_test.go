package oauthserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/internal/ratelimit"
)

// TestRegister: Dynamic Client Registration keeps a public client and
// refuses bad metadata with RFC 7591's codes, keeping nothing; past its
// limit an address gets 429.
func TestRegister(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool),
		Accounts: app.NewAccounts(pool), RegisterLimit: ratelimit.Limit{Rate: 0.001, Burst: 10}})
	if err != nil {
		t.Fatal(err)
	}
	post := func(body string) (int, map[string]any) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/oauth/register", strings.NewReader(body))
		r.RemoteAddr = "192.0.2.1:1234"
		s.registerClient(w, r)
		var m map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &m)
		return w.Code, m
	}
	code, m := post(`{"client_name":"Cursor","application_type":"native","redirect_uris":["cursor://anysphere.cursor-mcp/oauth/callback"],"token_endpoint_auth_method":"client_secret_basic",` +
		`"grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`)
	if code != 201 || m["token_endpoint_auth_method"] != "none" || m["client_secret"] != nil || !strings.HasPrefix(m["client_id"].(string), "tsc_") {
		t.Fatalf("register: %d %v", code, m)
	}
	if c, err := s.clients.get(t.Context(), m["client_id"].(string), allowAll); err != nil || c.Name != "Cursor" {
		t.Errorf("the registered client: %+v, %v", c, err)
	}
	for body, want := range map[string]string{
		`not json`:             "invalid_client_metadata",
		`{"redirect_uris":[]}`: "invalid_redirect_uri",
		`{"redirect_uris":["http://evil.example/cb"]}`:                                    "invalid_redirect_uri",
		`{"redirect_uris":["http://[::1%25x]/cb"]}`:                                       "invalid_redirect_uri",
		`{"redirect_uris":["https://a.example/cb#frag"]}`:                                 "invalid_redirect_uri",
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`: "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`:           "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"scope":"admin"}`:                      "invalid_client_metadata",
		`{"redirect_uris":["https://a.example/cb"],"logo_uri":"http://a.example/l.png"}`:  "invalid_client_metadata",
	} {
		code, m := post(body)
		if code != 400 || m["error"] != want || m["error_description"] == "" {
			t.Errorf("%s: %d %v, want 400 %s", body, code, m, want)
		}
	}
	if code, m := post(`{"redirect_uris":["https://a.example/cb"]}`); code != 429 || m["error"] != "too_many_requests" {
		t.Errorf("past the limit: %d %v", code, m)
	}
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM oauth_clients`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d clients kept, want 1 (%v)", n, err)
	}
}

// TestRegisterNamesTheMemberAsWritten: a refusal starts with the member
// at fault, as the client wrote it. A member of the wrong type was named
// by Go's path through the embedded metadata type
// ("ClientRegistrationMetadata.client_name: must be a string"), and a
// grant or response type Taasky does not offer by no member at all.
func TestRegisterNamesTheMemberAsWritten(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool),
		Accounts: app.NewAccounts(pool)})
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"client_name":7,"redirect_uris":["https://a.example/cb"]}`:                      "client_name: must be a string (got a JSON number)",
		`{"redirect_uris":"https://a.example/cb"}`:                                        "redirect_uris: must be an array of strings (got a JSON string)",
		`{"redirect_uris":["https://a.example/cb"],"logo_uri":{}}`:                        "logo_uri: must be a string (got a JSON object)",
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`: `grant_types: asks for grant type "client_credentials": Taasky offers authorization_code and refresh_token`,
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`:           `response_types: asks for response type "token": Taasky offers code`,
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/oauth/register", strings.NewReader(body))
		r.RemoteAddr = "192.0.2.1:1234"
		s.registerClient(w, r)
		var m map[string]string
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || w.Code != http.StatusBadRequest || m["error_description"] != want {
			t.Errorf("%s: %d %s, want 400 saying %q", body, w.Code, w.Body, want)
		}
	}
}
