package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/taasky/taasky/bench"
	"github.com/taasky/taasky/internal/pgtest"
)

// oauthStack is `taasky dev` with a browser (one person's tab) and a
// redirect endpoint standing for an MCP client's.
type oauthStack struct {
	t        *testing.T
	base     string
	tab      context.Context
	callback string
	answers  chan url.Values
	screens  int // pages the person saw in the last authorization
	log      func() string
	// consented, if set, looks at the consent screen before it is answered.
	consented func()
}

func newOAuthStack(t *testing.T) *oauthStack {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no chromium on this machine (apt-get install chromium; .ci/run does)")
	}
	addr, err := bench.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	s := &oauthStack{t: t, base: "http://" + addr, answers: make(chan url.Values, 4)}
	p := start(t, env{"DATABASE_URL": pgtest.NewDSN(t), "LISTEN_ADDR": addr, "BASE_URL": s.base,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}, "dev")
	p.waitStdout(t, "Stop with Ctrl-C.")
	s.log = p.stderr.String
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("taasky's log:\n%s", p.stderr.String())
		}
	})
	cb := httptest.NewServer(s.redirectEndpoint())
	t.Cleanup(cb.Close)
	s.callback = cb.URL + "/callback"
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(path), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()))
	t.Cleanup(cancel)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	s.tab = tab
	return s
}

// redirectEndpoint is a client's redirect URI: it passes the answer's
// query to s.answers.
func (s *oauthStack) redirectEndpoint() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser's favicon.ico
			return
		}
		s.answers <- r.URL.Query()
		_, _ = io.WriteString(w, "<p id=done>You can close this tab.</p>")
	})
}

func (s *oauthStack) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	c, cancel := context.WithTimeout(s.tab, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

// consent opens an authorization URL as the person (signing in as email
// at the dev issuer if the tab is not signed in yet) and answers the
// consent screen with decision ("approve" or "decline"; "" leaves it
// open). It returns the client's redirect's query, or nil for "".
func (s *oauthStack) consent(authURL, email, decision string) url.Values {
	s.t.Helper()
	s.screens = 0
	s.do("open the authorization URL", chromedp.Navigate(authURL),
		chromedp.WaitVisible(chromedp.CSS(`button[data-email], form[action="/oauth/authorize"], p.error`)))
	var onLogin bool
	c, cancel := context.WithTimeout(s.tab, 10*time.Second)
	onLogin, err := chromedp.Run(c, chromedp.Evaluate[bool](`document.querySelector('button[data-email]') !== null`))
	cancel()
	if err != nil {
		s.t.Fatal(err)
	}
	if onLogin {
		s.screens++
		s.do("sign in as "+email, chromedp.Click(chromedp.CSS(`button[data-email="`+email+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[action="/oauth/authorize"], p.error`)))
	}
	s.screens++
	if s.consented != nil {
		s.consented()
	}
	if decision == "" {
		return nil
	}
	s.do("answer "+decision, chromedp.Click(chromedp.CSS(`button[value="`+decision+`"]`)), chromedp.WaitVisible(chromedp.CSS(`#done`)))
	select {
	case q := <-s.answers:
		return q
	case <-time.After(10 * time.Second):
		s.t.Fatal("the client's redirect URI got no answer")
		return nil
	}
}

func (s *oauthStack) text(css string) string {
	s.t.Helper()
	c, cancel := context.WithTimeout(s.tab, 10*time.Second)
	defer cancel()
	txt, err := chromedp.Run(c, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		s.t.Fatalf("text of %s: %v", css, err)
	}
	return txt
}

// TestOAuthGoClient connects go-sdk's own client OAuth (Dynamic Client
// Registration, PKCE, resource indicator, iss) to `taasky dev` with only
// the account's MCP URL: the person signs in and consents in Chromium,
// and the agent calls a tool. Then the same client's token is held to its
// resource, and Disconnect in Settings ends it on the next call.
func TestOAuthGoClient(t *testing.T) {
	t.Parallel()
	s := newOAuthStack(t)
	ctx := context.Background()
	resource := s.base + "/mcp/demo-a"

	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Go test assistant", RedirectURIs: []string{s.callback}, GrantTypes: []string{"authorization_code", "refresh_token"}}},
		RedirectURL: s.callback,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			q := s.consent(args.URL, "alice@example.test", "approve")
			if q.Get("error") != "" {
				return nil, fmt.Errorf("authorization refused: %s: %s", q.Get("error"), q.Get("error_description"))
			}
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth: %v", err)
	}
	defer session.Close()
	if s.screens != 2 {
		t.Errorf("the person saw %d screens from the URL to the first call, want 2 (sign in, consent)", s.screens)
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("tools: %v, %v", tools, err)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "negotiation_list", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_list: %+v, %v", res, err)
	}

	// The human's gate holds as for a keyed agent: the agent's withdrawal
	// waits for the person's confirmation.
	var opened struct {
		RoomToken string `json:"room_token"`
	}
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": map[string]any{"place": map[string]any{"type": "string", "label": "Where"}}, "title": "OAuth test"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %+v, %v", res, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &opened)
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "negotiation_cancel", Arguments: map[string]any{"room_token": opened.RoomToken}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_cancel: %+v, %v", res, err)
	}
	if raw, _ = json.Marshal(res.StructuredContent); !strings.Contains(string(raw), `"status":"waiting_for_your_human"`) {
		t.Errorf("negotiation_cancel by an OAuth agent: %s", raw)
	}

	ts, err := h.TokenSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	// The audience matrix: a token for /mcp/demo-a works there only.
	for _, c := range []struct {
		path string
		want int
	}{{"/mcp/demo-a", 200}, {"/mcp/demo-b", 401}, {"/mcp", 401}, {"/mcp/nobody", 401}} {
		if got := mcpStatus(t, s.base+c.path, tok.AccessToken); got != c.want {
			t.Errorf("POST %s with demo-a's token: %d, want %d", c.path, got, c.want)
		}
	}

	// Settings shows the agent connected with OAuth; Disconnect ends its
	// token on the next call.
	s.do("open settings", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`p.oauth`)))
	if txt := s.text(`p.oauth`); !strings.Contains(txt, "Connected with OAuth by Go test assistant") || !strings.Contains(txt, "last used") {
		t.Errorf("settings say %q", txt)
	}
	s.do("disconnect", chromedp.Click(chromedp.CSS(`button[aria-label="Disconnect Go test assistant"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	if got := mcpStatus(t, resource, tok.AccessToken); got != 401 {
		t.Errorf("a call after Disconnect: %d, want 401", got)
	}
}

// mcpStatus is the status of a tools/list call with bearer.
func mcpStatus(t *testing.T, endpoint, bearer string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// rawClient is a client registered by hand, for the flows the SDKs do not
// let a test bend: wrong verifiers, reused codes and refresh tokens.
type rawClient struct {
	s  *oauthStack
	id string
}

func (s *oauthStack) register(name string) rawClient {
	s.t.Helper()
	reg, err := oauthex.RegisterClient(context.Background(), s.base+"/oauth/register",
		&oauthex.ClientRegistrationMetadata{ClientName: name, RedirectURIs: []string{s.callback}}, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	return rawClient{s: s, id: reg.ClientID}
}

func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

func (c rawClient) authorizeURL(resource, challenge string, extra ...string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.s.callback},
		"state": {"state-12345"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	if resource != "" {
		q.Set("resource", resource)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			q.Del(extra[i])
		} else {
			q.Set(extra[i], extra[i+1])
		}
	}
	return c.s.base + "/oauth/authorize?" + q.Encode()
}

// tokenAnswer is the token endpoint's answer, success or error.
type tokenAnswer struct {
	Status       int
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (c rawClient) token(form url.Values) tokenAnswer {
	c.s.t.Helper()
	form.Set("client_id", c.id)
	resp, err := http.PostForm(c.s.base+"/oauth/token", form)
	if err != nil {
		c.s.t.Fatal(err)
	}
	defer resp.Body.Close()
	a := tokenAnswer{Status: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		c.s.t.Fatal(err)
	}
	return a
}

func (c rawClient) exchange(code, verifier string) tokenAnswer {
	return c.token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {c.s.callback}, "code_verifier": {verifier}})
}

// TestOAuthAbuse holds the server to the refusals: PKCE, codes, refresh
// rotation and reuse, resources and accounts, declines.
func TestOAuthAbuse(t *testing.T) {
	t.Parallel()
	s := newOAuthStack(t)
	c := s.register("Raw client")
	resource := s.base + "/mcp/demo-a"

	// No PKCE, or plain: refused to the client, before any consent.
	s.do("sign in first", chromedp.Navigate(s.base+"/login"), chromedp.WaitVisible(chromedp.CSS(`button[data-email]`)),
		chromedp.Click(chromedp.CSS(`button[data-email="alice@example.test"]`)), chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)))
	for _, bad := range [][]string{{"code_challenge", ""}, {"code_challenge_method", "plain"}} {
		u := c.authorizeURL(resource, "x", bad...)
		s.do("open "+bad[0], chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(`#done`)))
		q := <-s.answers
		if q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), bad[0]) || q.Get("iss") != s.base {
			t.Errorf("%v: answered %v", bad, q)
		}
	}

	// An unknown client and a redirect URI not registered are shown to
	// the person, never redirected.
	s.do("unknown client", chromedp.Navigate(c.authorizeURL(resource, "x", "client_id", "tsc_nope")), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if txt := s.text(`p.error`); !strings.Contains(txt, "client_id") {
		t.Errorf("unknown client: %q", txt)
	}
	s.do("wrong redirect", chromedp.Navigate(c.authorizeURL(resource, "x", "redirect_uri", "https://evil.example/cb")), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if txt := s.text(`p.error`); !strings.Contains(txt, "redirect_uri") {
		t.Errorf("wrong redirect: %q", txt)
	}

	// A loopback redirect matches the registered one on any port (RFC
	// 8252 §7.3: desktop clients listen on a free port).
	otherPort := httptest.NewServer(s.redirectEndpoint())
	t.Cleanup(otherPort.Close)
	{
		v, ch := pkce()
		q := s.consent(c.authorizeURL(resource, ch, "redirect_uri", otherPort.URL+"/callback"), "alice@example.test", "approve")
		a := c.token(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {otherPort.URL + "/callback"}, "code_verifier": {v}})
		if a.AccessToken == "" {
			t.Errorf("a loopback redirect on another port: %v, then %+v", q, a)
		}
	}

	// A resource of an account alice is no member of: refused, with the reason.
	_, ch := pkce()
	s.consent(c.authorizeURL(s.base+"/mcp/demo-b", ch), "alice@example.test", "")
	if txt := s.text(`p.error`); !strings.Contains(txt, "not a member of the account demo-b") {
		t.Errorf("demo-b for alice: %q", txt)
	}
	if q := s.consent(c.authorizeURL(s.base+"/mcp/demo-b", ch), "alice@example.test", "decline"); q.Get("error") != "access_denied" {
		t.Errorf("decline: %v", q)
	}
	s.do("unknown account", chromedp.Navigate(c.authorizeURL(s.base+"/mcp/nobody", ch)), chromedp.WaitVisible(chromedp.CSS(`#done`)))
	if q := <-s.answers; q.Get("error") != "invalid_target" {
		t.Errorf("unknown account: %v", q)
	}

	// The wrong verifier, or another resource, is refused and changes
	// nothing: the code still works with the right verifier, once.
	for _, bad := range []url.Values{{"code_verifier": {"wrong-verifier-wrong-verifier-wrong-verifier-0"}},
		{"resource": {s.base + "/mcp/demo-b"}}} {
		verifier, challenge := pkce()
		q := s.consent(c.authorizeURL(resource, challenge), "alice@example.test", "approve")
		form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {s.callback}, "code_verifier": {verifier}}
		for k, v := range bad {
			form[k] = v
		}
		want := "invalid_grant"
		if bad.Has("resource") {
			want = "invalid_target"
		}
		if a := c.token(form); a.Error != want || a.Description == "" {
			t.Errorf("%v: %+v", bad, a)
		}
		if a := c.exchange(q.Get("code"), verifier); a.AccessToken == "" {
			t.Errorf("after %v, the right verifier: %+v", bad, a)
		}
	}
	// The right one works once; a second use revokes what the first issued.
	verifier, challenge := pkce()
	q := s.consent(c.authorizeURL(resource, challenge), "alice@example.test", "approve")
	if q.Get("iss") != s.base || q.Get("code") == "" {
		t.Fatalf("approve: %v", q)
	}
	code := q.Get("code")
	first := c.exchange(code, verifier)
	if first.AccessToken == "" || first.RefreshToken == "" {
		t.Fatalf("exchange: %+v", first)
	}
	if got := mcpStatus(t, resource, first.AccessToken); got != 200 {
		t.Fatalf("the access token: %d", got)
	}
	if a := c.exchange(code, verifier); a.Error != "invalid_grant" {
		t.Errorf("a reused code: %+v", a)
	}
	if got := mcpStatus(t, resource, first.AccessToken); got != 401 {
		t.Errorf("the reused code's access token still works: %d", got)
	}

	// Refresh: rotation, then a reuse revokes the whole grant.
	verifier, challenge = pkce()
	q = s.consent(c.authorizeURL(resource, challenge), "alice@example.test", "approve")
	got := c.exchange(q.Get("code"), verifier)
	rotated := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {got.RefreshToken}})
	if rotated.AccessToken == "" || rotated.RefreshToken == "" || rotated.RefreshToken == got.RefreshToken {
		t.Fatalf("refresh: %+v", rotated)
	}
	if code := mcpStatus(t, resource, rotated.AccessToken); code != 200 {
		t.Fatalf("the rotated access token: %d", code)
	}
	if a := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {got.RefreshToken}}); a.Error != "invalid_grant" {
		t.Errorf("a reused refresh token: %+v", a)
	}
	if a := c.token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rotated.RefreshToken}}); a.Error != "invalid_grant" {
		t.Errorf("after a reuse, the rotated refresh token: %+v", a)
	}
	if code := mcpStatus(t, resource, rotated.AccessToken); code != 401 {
		t.Errorf("after a reuse, the rotated access token: %d", code)
	}

	// Revocation (RFC 7009) of a refresh token ends its access token.
	verifier, challenge = pkce()
	q = s.consent(c.authorizeURL("", challenge), "alice@example.test", "approve")
	got = c.exchange(q.Get("code"), verifier)
	if code := mcpStatus(t, s.base+"/mcp", got.AccessToken); code != 200 {
		t.Fatalf("a token for /mcp (the account chosen at the consent): %d", code)
	}
	if code := mcpStatus(t, resource, got.AccessToken); code != 401 {
		t.Errorf("a token for /mcp on /mcp/demo-a: %d", code)
	}
	resp, err := http.PostForm(s.base+"/oauth/revoke", url.Values{"token": {got.RefreshToken}, "client_id": {c.id}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("revoke: %d", resp.StatusCode)
	}
	if code := mcpStatus(t, s.base+"/mcp", got.AccessToken); code != 401 {
		t.Errorf("after revocation: %d", code)
	}

	// Nothing in the log holds a code or a token.
	for _, secret := range []string{code, first.AccessToken, first.RefreshToken, rotated.AccessToken, rotated.RefreshToken, got.RefreshToken} {
		if strings.Contains(s.log(), secret) {
			t.Errorf("the log holds a code or token")
		}
	}

	// Without a bearer: 401 pointing at the resource's metadata.
	req, _ := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `resource_metadata="` + s.base + `/.well-known/oauth-protected-resource/mcp/demo-a"`
	if h := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(h, want) {
		t.Errorf("no bearer: %d %q", resp.StatusCode, h)
	}
	var prm oauthex.ProtectedResourceMetadata
	getJSON(t, s.base+"/.well-known/oauth-protected-resource/mcp/demo-a", &prm)
	if prm.Resource != resource || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != s.base || prm.BearerMethodsSupported[0] != "header" {
		t.Errorf("resource metadata: %+v", prm)
	}
	var asm oauthex.AuthServerMeta
	getJSON(t, s.base+"/.well-known/oauth-authorization-server", &asm)
	if !asm.ClientIDMetadataDocumentSupported || !asm.AuthorizationResponseIssParameterSupported || asm.CodeChallengeMethodsSupported[0] != "S256" {
		t.Errorf("server metadata: %+v", asm)
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
