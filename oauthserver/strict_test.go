package oauthserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/internal/ratelimit"
)

// mounted is a Server's endpoints as cmd/taasky serves them.
func mounted(t *testing.T, s *Server) func(method, path, contentType, body string) (int, map[string]any) {
	t.Helper()
	web := fiber.New()
	s.Mount(web)
	return func(method, path, contentType, body string) (int, map[string]any) {
		t.Helper()
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", contentType)
		resp, err := web.Test(r, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}
}

// TestRegisterNamesTheFieldAndTheRule: each bad registration is one 400
// whose description names the field at fault (and only it) and its rule,
// and nothing is kept. A redirect URI must say where the answer goes (an
// http or https one has a host, no user name before it, and a real
// port), since the consent screen shows that host; a client's name is
// the name of the agent it becomes, so it is held to an agent name's
// rules (no direction-changing or invisible characters, no word mixing
// alphabets). Valid metadata is not refused for a member Taasky ignores
// (jwks is a JSON object, RFC 7591 §2).
func TestRegisterNamesTheFieldAndTheRule(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool),
		Accounts: app.NewAccounts(pool), RegisterLimit: ratelimit.Limit{Rate: 1000, Burst: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	post := mounted(t, s)
	const ok = `"redirect_uris":["https://a.example/cb"]`
	for _, c := range []struct {
		body, code, field, rule, notField string
	}{
		{`{"redirect_uris":"https://a.example/cb"}`, "invalid_client_metadata", "redirect_uris", "array", ""},
		{`{` + ok + `,"client_name":5}`, "invalid_client_metadata", "client_name", "string", ""},
		{`{` + ok + `,"grant_types":"authorization_code"}`, "invalid_client_metadata", "grant_types", "array", ""},
		{`{"redirect_uris":["https:evil.example"]}`, "invalid_redirect_uri", "https:evil.example", "host", ""},
		{`{"redirect_uris":["https:///cb"]}`, "invalid_redirect_uri", "https:///cb", "host", ""},
		{`{"redirect_uris":["https://claude.ai@evil.example/cb"]}`, "invalid_redirect_uri", "claude.ai@evil.example", "user", ""},
		{`{"redirect_uris":["http://127.0.0.1:99999/cb"]}`, "invalid_redirect_uri", "127.0.0.1:99999", "port", ""},
		{`{"redirect_uris":["http://127.0.0.1:0/cb"]}`, "invalid_redirect_uri", "127.0.0.1:0", "port", ""},
		{`{` + ok + `,"client_name":"Claude\u202e"}`, "invalid_client_metadata", "client_name", "direction", ""},
		{`{` + ok + `,"client_name":"Cl\u200baude"}`, "invalid_client_metadata", "client_name", "invisible", ""},
		{`{` + ok + `,"client_name":"\u0421laude"}`, "invalid_client_metadata", "client_name", "scripts", ""},
		{`{` + ok + `,"logo_uri":"http://a.example/l.png"}`, "invalid_client_metadata", "logo_uri", "https", "client_uri"},
		{`{` + ok + `,"client_uri":"http://a.example"}`, "invalid_client_metadata", "client_uri", "https", "logo_uri"},
	} {
		status, m := post(http.MethodPost, "/oauth/register", "application/json", c.body)
		desc, _ := m["error_description"].(string)
		if status != 400 || m["error"] != c.code || !strings.Contains(desc, c.field) || !strings.Contains(desc, c.rule) ||
			c.notField != "" && strings.Contains(desc, c.notField) {
			t.Errorf("%s: %d %v, want 400 %s naming %s and %q", c.body, status, m, c.code, c.field, c.rule)
		}
	}
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM oauth_clients`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d clients kept after refusals, want 0 (%v)", n, err)
	}
	for _, body := range []string{
		`{` + ok + `,"jwks":{"keys":[]},"client_name":"Claude Desktop"}`,
		`{"redirect_uris":["com.example.app:/oauth2redirect","cursor://anysphere.cursor-mcp/oauth/callback","http://[::1]/cb","http://localhost:33418/cb"],"client_name":"日本語のクライアント"}`,
	} {
		if status, m := post(http.MethodPost, "/oauth/register", "application/json", body); status != 201 {
			t.Errorf("%s: %d %v, want 201", body, status, m)
		}
	}
}
