package dashboard

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/oauthserver"
)

// TestConsentRefusalsInThePersonsLanguage: what the consent screen shows
// when an authorization request cannot go on (a client nobody connected
// yet is never sent the browser back: the person reads it) is in the
// person's language, as the rest of the dashboard; fosite's refusals and
// Taasky's own were in English whatever the person's language. In English
// each names the parameter at fault, as before.
func TestConsentRefusalsInThePersonsLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	state := app.NewOAuth(b.pool)
	srv, err := oauthserver.New(oauthserver.Config{BaseURL: b.base, Secret: make([]byte, 32), State: state, Accounts: b.accounts})
	if err != nil {
		t.Fatal(err)
	}
	b.dash.oauth = struct { // as cmd/taasky joins them
		*oauthserver.Server
		*app.OAuth
	}{srv, state}
	c, err := state.SaveClient(b.ctx, app.OAuthClient{ID: "tsc_words", Kind: app.OAuthClientRegistered, Name: "Words",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("a verifier of the test, long enough to be one: 43+ characters"))
	challenge := base64.RawURLEncoding.EncodeToString(sum[:])
	params := func(kv ...string) url.Values {
		q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
			"state": {"state-12345"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
			"resource": {b.base + "/mcp/alpha"}}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				q.Del(kv[i])
			} else {
				q.Set(kv[i], kv[i+1])
			}
		}
		return q
	}
	errorText := regexp.MustCompile(`<p class="error" role="alert">([^<]*)</p>`)
	shown := func(lang string, q url.Values, form url.Values) string {
		t.Helper()
		cl := b.client(&b.alice)
		cl.lang = lang
		st, _, body := cl.get("/oauth/authorize?" + q.Encode())
		if form != nil {
			for k, vs := range q {
				form[k] = vs
			}
			st, _, body = cl.post("/oauth/authorize", form)
		}
		m := errorText.FindStringSubmatch(body)
		if st != 400 || m == nil {
			t.Fatalf("%s %v: %d, no refusal shown\n%s", lang, q, st, body)
		}
		return html.UnescapeString(m[1])
	}
	for _, tc := range []struct {
		name  string
		q     url.Values
		form  url.Values // the consent's answer, when the refusal comes then
		names string     // the parameter the English names
	}{
		{"redirect not registered (fosite)", params("redirect_uri", "https://evil.example/cb"), nil, "redirect_uri"},
		{"redirect with a user name", params("redirect_uri", "http://user:pw@127.0.0.1:9999/cb"), nil, "redirect_uri"},
		{"no code_challenge", params("code_challenge", ""), nil, "code_challenge"},
		{"plain", params("code_challenge_method", "plain"), nil, "code_challenge_method"},
		{"a challenge no verifier matches", params("code_challenge", "x"), nil, "code_challenge"},
		{"response_type token (fosite)", params("response_type", "token"), nil, "response_type"},
		{"two resources", func() url.Values { q := params(); q.Add("resource", b.base+"/mcp"); return q }(), nil, "resource"},
		{"a resource elsewhere", params("resource", "https://elsewhere.example/mcp"), nil, "resource"},
		{"a resource of no account", params("resource", b.base+"/mcp/nobody"), nil, "resource"},
		{"a metadata document without a path", params("client_id", "https://client.example/"), nil, "client_id"},
		{"an account not listed", params("resource", ""), url.Values{"decision": {"approve"}, "account": {"beta"}}, "account"},
	} {
		english := shown("en", tc.q, tc.form)
		if !strings.Contains(english, tc.names) {
			t.Errorf("%s, in English: %q names no %s", tc.name, english, tc.names)
		}
		for _, lang := range []string{"fr", "de", "es", "ja"} {
			if got := shown(lang, tc.q, tc.form); got == english {
				t.Errorf("%s, in %s: still in English: %q", tc.name, lang, got)
			}
		}
	}
}
