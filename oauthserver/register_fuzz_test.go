package oauthserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/internal/ratelimit"
)

// fieldFirst is the member a refusal's description starts with.
var fieldFirst = regexp.MustCompile(`^([a-z_]+)(\.[^:]*)?: `)

// FuzzRegister posts arbitrary bodies to Dynamic Client Registration
// (the real handler, its limit out of reach). Whatever comes in: no 5xx;
// a refusal is RFC 7591's JSON error whose one-line description starts
// with the member at fault, one the body has (or says the body is no
// JSON object); a registration keeps the redirect URIs asked for, each a
// URI its checks let through, and makes a public client.
//
//	go test ./oauthserver -run XXX -fuzz FuzzRegister -fuzztime 3m -parallel 1
func FuzzRegister(f *testing.F) {
	for _, body := range []string{
		`not json`, `{"redirect_uris":[]}`, `{"redirect_uris":["http://evil.example/cb"]}`,
		`{"redirect_uris":["https://a.example/cb#frag"]}`,
		`{"redirect_uris":["https://a.example/cb"],"grant_types":["client_credentials"]}`,
		`{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}`,
		`{"redirect_uris":["https://a.example/cb"],"scope":"admin"}`,
		`{"redirect_uris":["https://a.example/cb"],"logo_uri":"http://a.example/l.png"}`,
		`{"client_name":"Cursor","application_type":"native","redirect_uris":["cursor://anysphere.cursor-mcp/oauth/callback"],"token_endpoint_auth_method":"client_secret_basic"}`,
		`{"redirect_uris":["http://127.0.0.1:33418/cb","http://[::1]/cb"],"jwks":{"keys":[]},"client_name":"\u202eevil"}`,
		`{"redirect_uris":"https://a.example/cb"}`, `{"redirect_uris":[7]}`, `{"client_name":7}`, `[]`, `null`,
		`{"redirect_uris":["https:evil.example"]}`, `{"redirect_uris":["https://u@a.example/"]}`, `{"redirect_uris":["https://a.example:0/"]}`,
	} {
		f.Add([]byte(body))
	}
	pool := pgtest.New(f)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool),
		Accounts: app.NewAccounts(pool), RegisterLimit: ratelimit.Limit{Rate: 1e9, Burst: 1 << 30}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/oauth/register", bytes.NewReader(body))
		r.RemoteAddr = "192.0.2.1:1234"
		s.registerClient(w, r)
		if w.Code >= 500 {
			t.Fatalf("%q: HTTP %d %s", body, w.Code, w.Body)
		}
		var asked map[string]json.RawMessage
		_ = json.Unmarshal(body, &asked)
		if w.Code == http.StatusCreated {
			var got struct {
				ClientID     string   `json:"client_id"`
				RedirectURIs []string `json:"redirect_uris"`
				AuthMethod   string   `json:"token_endpoint_auth_method"`
			}
			var want struct {
				RedirectURIs []string `json:"redirect_uris"`
			}
			_ = json.Unmarshal(body, &want)
			if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || !strings.HasPrefix(got.ClientID, "tsc_") ||
				!slices.Equal(got.RedirectURIs, want.RedirectURIs) || got.AuthMethod != "none" {
				t.Fatalf("%q: registered as %s", body, w.Body)
			}
			if _, err := checkRedirectURIs(got.RedirectURIs); err != nil {
				t.Fatalf("%q: registered with redirect URIs the checks refuse: %v", body, err)
			}
			return
		}
		var m map[string]string
		if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || w.Code != http.StatusBadRequest ||
			(m["error"] != "invalid_client_metadata" && m["error"] != "invalid_redirect_uri") || strings.Contains(m["error_description"], "\n") {
			t.Fatalf("%q: HTTP %d %s", body, w.Code, w.Body)
		}
		desc := m["error_description"]
		if strings.HasPrefix(desc, "the registration is not a JSON object") || strings.HasPrefix(desc, "the registration must be a JSON object") {
			if asked != nil && json.Valid(body) && bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
				var probe map[string]any
				if json.Unmarshal(body, &probe) == nil {
					t.Fatalf("%q: a JSON object, refused as none: %s", body, desc)
				}
			}
			return
		}
		field := fieldFirst.FindStringSubmatch(desc)
		if field == nil || asked[field[1]] == nil && field[1] != "redirect_uris" { // the one member required
			t.Fatalf("%q: the refusal names no member the body has: %s", body, desc)
		}
	})
}
