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
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"
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
	dsn       string
	// devAgents are the demo agents `taasky dev` printed: MCP URL and key.
	devAgents [][]string
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
	s := &oauthStack{t: t, base: "http://" + addr, answers: make(chan url.Values, 4), dsn: pgtest.NewDSN(t)}
	p := start(t, env{"DATABASE_URL": s.dsn, "LISTEN_ADDR": addr, "BASE_URL": s.base,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}, "dev")
	s.devAgents = devAgent.FindAllStringSubmatch(p.waitStdout(t, "Stop with Ctrl-C."), -1)
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

// warnings are the texts of the consent screen's warnings.
func (s *oauthStack) warnings() []string {
	s.t.Helper()
	c, cancel := context.WithTimeout(s.tab, 10*time.Second)
	defer cancel()
	ws, err := chromedp.Run(c, chromedp.Evaluate[[]string](`[...document.querySelectorAll('p.warning')].map(p => p.textContent)`))
	if err != nil {
		s.t.Fatalf("the consent screen's warnings: %v", err)
	}
	return ws
}

// wantWarnings holds the consent screen to its warnings: "new" (a client
// nobody connected before) and "host" (its answer goes to another host
// than the client's), each present exactly when asked for.
func (s *oauthStack) wantWarnings(clientHost string, want ...string) {
	s.t.Helper()
	ws := s.warnings()
	var isNew, differs bool
	for _, w := range ws {
		switch {
		case strings.Contains(w, "new to Taasky"):
			isNew = true
		case clientHost != "" && strings.Contains(w, clientHost) && strings.Contains(w, "127.0.0.1"):
			differs = true
		}
	}
	if isNew != slices.Contains(want, "new") || differs != slices.Contains(want, "host") || len(ws) != len(want) {
		s.t.Errorf("the consent screen warns %q, want %v", ws, want)
	}
}

// exec runs one statement on the stack's database; it returns the rows it
// touched.
func (s *oauthStack) exec(sql string, args ...any) int64 {
	s.t.Helper()
	conn, err := pgx.Connect(context.Background(), s.dsn)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tag, err := conn.Exec(context.Background(), sql, args...)
	if err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
	return tag.RowsAffected()
}

// scan reads the one row sql selects into dest.
func (s *oauthStack) scan(dest any, sql string, args ...any) {
	s.t.Helper()
	conn, err := pgx.Connect(context.Background(), s.dsn)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(dest); err != nil {
		s.t.Fatalf("%s: %v", sql, err)
	}
}

// count is the one integer sql selects.
func (s *oauthStack) count(sql string, args ...any) int {
	s.t.Helper()
	var n int
	s.scan(&n, sql, args...)
	return n
}

// storedIn says, of each secret, which tables of the database have a row
// whose text holds it, as text or as bytea's hex.
func (s *oauthStack) storedIn(secrets ...string) map[string][]string {
	s.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.dsn)
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 10 {
		s.t.Fatalf("the tables: %v, %v", tables, err)
	}
	found := map[string][]string{}
	for _, table := range tables {
		rows, _ := conn.Query(ctx, `SELECT DISTINCT secret FROM `+pgx.Identifier{table}.Sanitize()+` t, unnest($1::text[]) secret
			WHERE strpos(t::text, secret) > 0 OR strpos(t::text, encode(convert_to(secret, 'UTF8'), 'hex')) > 0`, secrets)
		in, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			s.t.Fatalf("search %s: %v", table, err)
		}
		for _, secret := range in {
			found[secret] = append(found[secret], table)
		}
	}
	return found
}

// signOut ends the tab's session: the next authorization signs in again.
func (s *oauthStack) signOut() {
	s.t.Helper()
	s.do("sign out", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"] button`)),
		chromedp.Click(chromedp.CSS(`form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS(`section.msg a[href^="/login"]`)))
}

// TestOAuthGoClient connects go-sdk's own client OAuth (Dynamic Client
// Registration, PKCE, resource indicator, iss) to `taasky dev` with only
// the account's MCP URL: the person signs in and consents in Chromium,
// and the agent calls a tool. Then the same client's token is held to its
// resource, and Disconnect in Settings ends it on the next call. A second
// client, still signed in, takes one screen; connected again, it gets the
// same agent back; the consent screen warns about what it should, only.
// Bob's token for demo-b is held to demo-b as alice's is to demo-a.
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
	// go-sdk registers no client_uri: nothing to compare its redirect's
	// host with, so only the warning that nobody connected it before.
	s.consented = func() { s.wantWarnings("", "new") }
	client := mcp.NewClient(&mcp.Implementation{Name: "go-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: h, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect with OAuth: %v", err)
	}
	defer session.Close()
	s.consented = nil
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
	audience(t, s, tok.AccessToken, "demo-a")

	// Settings shows the agent connected with OAuth; Disconnect ends its
	// token on the next call.
	s.do("open settings", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`p.oauth`)))
	if txt := s.text(`p.oauth`); !strings.Contains(txt, "Connected with OAuth by Go test assistant") || !strings.Contains(txt, "last used") ||
		!strings.Contains(txt, "access ends ") {
		t.Errorf("settings say %q", txt)
	}
	s.do("disconnect", chromedp.Click(chromedp.CSS(`button[aria-label="Disconnect Go test assistant"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	if got := mcpStatus(t, resource, tok.AccessToken); got != 401 {
		t.Errorf("a call after Disconnect: %d, want 401", got)
	}

	// A second client while the person is still signed in: one screen, the
	// consent (docs/agents.md). Its client_uri is on another host than its
	// redirect, which the screen says; and it is new, until connected.
	second := s.register("Second assistant", "https://assistant.example")
	connect := func(resource string, email string, warnings ...string) tokenAnswer {
		t.Helper()
		verifier, challenge := pkce()
		s.consented = func() { s.wantWarnings("assistant.example", warnings...) }
		defer func() { s.consented = nil }()
		q := s.consent(second.authorizeURL(resource, challenge), email, "approve")
		a := second.exchange(q.Get("code"), verifier)
		if a.AccessToken == "" {
			t.Fatalf("the second client's exchange: %v, then %+v", q, a)
		}
		if got := mcpStatus(t, resource, a.AccessToken); got != 200 {
			t.Fatalf("the second client's token: %d", got)
		}
		return a
	}
	connect(resource, "alice@example.test", "new", "host")
	if s.screens != 1 {
		t.Errorf("already signed in, the person saw %d screens, want 1 (consent)", s.screens)
	}
	// Connected again by the same person, connected again after a
	// Disconnect: the same agent each time, listed once.
	onlyAgent := func(when string) {
		t.Helper()
		if n := s.count(`SELECT count(*) FROM agents a JOIN accounts c ON c.id = a.account_id
			WHERE c.slug = 'demo-a' AND a.name LIKE 'Second assistant%'`); n != 1 {
			t.Errorf("%s: demo-a has %d agents of the second client, want 1", when, n)
		}
		s.do("open settings", chromedp.Navigate(s.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`p.oauth`)))
		c, cancel := context.WithTimeout(s.tab, 10*time.Second)
		defer cancel()
		listed, err := chromedp.Run(c, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll('p.oauth')].map(p => p.textContent).filter(t => t.includes('Second assistant'))`))
		if err != nil || len(listed) != 1 || !strings.Contains(listed[0], "Connected with OAuth by Second assistant") {
			t.Errorf("%s: settings list the second client as %q (%v), want it once, connected", when, listed, err)
		}
	}
	connect(resource, "alice@example.test", "host")
	onlyAgent("connected twice")
	s.do("disconnect the second client", chromedp.Click(chromedp.CSS(`button[aria-label="Disconnect Second assistant"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
	connect(resource, "alice@example.test", "host")
	onlyAgent("connected again after Disconnect")

	// The audience matrix the other way: bob's token for demo-b works
	// there only. Signed out, he signs in again: two screens.
	s.signOut()
	bob := connect(s.base+"/mcp/demo-b", "bob@example.test", "host")
	if s.screens != 2 {
		t.Errorf("signed out, the person saw %d screens, want 2 (sign in, consent)", s.screens)
	}
	audience(t, s, bob.AccessToken, "demo-b")
}

// audience holds a token granted for /mcp/{account} to that resource: it
// is refused on the other demo account's, on /mcp and on an unknown one.
func audience(t *testing.T, s *oauthStack, token, account string) {
	t.Helper()
	other := map[string]string{"demo-a": "demo-b", "demo-b": "demo-a"}[account]
	for _, c := range []struct {
		path string
		want int
	}{{"/mcp/" + account, 200}, {"/mcp/" + other, 401}, {"/mcp", 401}, {"/mcp/nobody", 401}} {
		if got := mcpStatus(t, s.base+c.path, token); got != c.want {
			t.Errorf("POST %s with %s's token: %d, want %d", c.path, account, got, c.want)
		}
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

// register registers a client by Dynamic Client Registration, with its
// client_uri if not "".
func (s *oauthStack) register(name, clientURI string) rawClient {
	s.t.Helper()
	reg, err := oauthex.RegisterClient(context.Background(), s.base+"/oauth/register",
		&oauthex.ClientRegistrationMetadata{ClientName: name, ClientURI: clientURI, RedirectURIs: []string{s.callback}}, nil)
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
	c := s.register("Raw client", "")
	resource := s.base + "/mcp/demo-a"

	// No PKCE, or plain, from a client nobody has connected yet (anyone
	// may register one): shown to the person, before any consent, and the
	// browser is not sent to the client's site (RFC 9700 §4.11.2).
	s.do("sign in first", chromedp.Navigate(s.base+"/login"), chromedp.WaitVisible(chromedp.CSS(`button[data-email]`)),
		chromedp.Click(chromedp.CSS(`button[data-email="alice@example.test"]`)), chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)))
	pkceFaults := [][]string{{"code_challenge", ""}, {"code_challenge_method", "plain"}}
	for _, bad := range pkceFaults {
		s.do("open "+bad[0], chromedp.Navigate(c.authorizeURL(resource, "x", bad...)), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
		if txt := s.text(`p.error`); !strings.Contains(txt, bad[0]) {
			t.Errorf("%v from a new client: %q", bad, txt)
		}
	}
	select {
	case q := <-s.answers:
		t.Errorf("a new client's fault sent the browser to it: %v", q)
	default:
	}

	// The consent form's own fields in the client's link (decision,
	// account) are not the person's answer: Decline declines, and the
	// account chosen is the one connected.
	{
		_, ch := pkce()
		q := s.consent(c.authorizeURL(resource, ch, "decision", "approve"), "alice@example.test", "decline")
		if q.Get("error") != "access_denied" || q.Get("code") != "" {
			t.Errorf("decision=approve in the link, then Decline: %v", q)
		}
		v, ch := pkce()
		q = s.consent(c.authorizeURL("", ch, "account", "demo-b"), "alice@example.test", "approve")
		if a := c.exchange(q.Get("code"), v); a.AccessToken == "" || mcpStatus(t, s.base+"/mcp", a.AccessToken) != http.StatusOK {
			t.Errorf("account=demo-b in the link, alice chose demo-a: %v, then %+v", q, a)
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

	// Once someone connected the client, its faults go back to it, with iss.
	for _, bad := range pkceFaults {
		s.do("open "+bad[0]+" again", chromedp.Navigate(c.authorizeURL(resource, "x", bad...)), chromedp.WaitVisible(chromedp.CSS(`#done`)))
		q := <-s.answers
		if q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), bad[0]) || q.Get("iss") != s.base {
			t.Errorf("%v from a known client: answered %v", bad, q)
		}
	}
	// state is optional with PKCE (OAuth 2.1): none, or a short one, works,
	// and the answer carries exactly what was sent.
	for _, state := range []string{"", "abc"} {
		v, ch := pkce()
		q := s.consent(c.authorizeURL(resource, ch, "state", state), "alice@example.test", "approve")
		if _, has := q["state"]; has != (state != "") || q.Get("state") != state || c.exchange(q.Get("code"), v).AccessToken == "" {
			t.Errorf("state %q: answered %v", state, q)
		}
	}

	// A resource of an account alice is no member of: refused, with the reason.
	_, ch := pkce()
	s.consent(c.authorizeURL(s.base+"/mcp/demo-b", ch), "alice@example.test", "")
	if txt := s.text(`p.error`); !strings.Contains(txt, "not a member of the account demo-b") {
		t.Errorf("demo-b for alice: %q", txt)
	}
	// In her language, as every page; and an unknown client too.
	s.exec(`UPDATE users SET language = 'de' WHERE email = 'alice@example.test'`)
	s.consent(c.authorizeURL(s.base+"/mcp/demo-b", ch), "alice@example.test", "")
	if txt := s.text(`p.error`); !strings.Contains(txt, "Sie sind kein Mitglied des Kontos demo-b") {
		t.Errorf("demo-b for alice, in German: %q", txt)
	}
	s.do("unknown client, in German", chromedp.Navigate(c.authorizeURL(resource, "x", "client_id", "tsc_nope")), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if txt := s.text(`p.error`); !strings.Contains(txt, `bei Taasky ist kein Client "tsc_nope" registriert`) {
		t.Errorf("unknown client, in German: %q", txt)
	}
	s.exec(`UPDATE users SET language = NULL WHERE email = 'alice@example.test'`)
	if q := s.consent(c.authorizeURL(s.base+"/mcp/demo-b", ch), "alice@example.test", "decline"); q.Get("error") != "access_denied" {
		t.Errorf("decline: %v", q)
	}
	// The account field of the consent form changed to one alice is no
	// member of (the page offers only hers): refused on the page, and the
	// client hears nothing.
	s.consent(c.authorizeURL(s.base+"/mcp", ch), "alice@example.test", "")
	s.do("choose demo-b by hand", chromedp.Evaluate[chromedp.Void](
		`(f => { f.innerHTML = '<option>demo-b</option>'; f.value = 'demo-b' })(document.querySelector('[name="account"]'))`),
		chromedp.Click(chromedp.CSS(`button[value="approve"]`)), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if txt := s.text(`p.error`); !strings.Contains(txt, `account: choose one of the accounts listed (got "demo-b")`) {
		t.Errorf("a consent for demo-b posted by alice: %q", txt)
	}
	select {
	case q := <-s.answers:
		t.Errorf("a consent for another person's account answered the client: %v", q)
	default:
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
	// Stored hashed: while the code's, the access and the refresh token's
	// rows are there, no row of any table holds one of them, or the secret
	// half of one (fosite's token is key.signature, and the signature, an
	// HMAC of the key, is what is kept), or the verifier. The signature is
	// found: the search reads those rows.
	secrets := map[string]string{code: "the code", first.AccessToken: "the access token", first.RefreshToken: "the refresh token", verifier: "the verifier"}
	var searched []string
	for secret := range secrets {
		key, signature, _ := strings.Cut(secret, ".")
		searched = append(searched, secret, key, signature)
	}
	stored := s.storedIn(searched...)
	for secret, what := range secrets {
		key, signature, _ := strings.Cut(secret, ".")
		if tables := stored[secret]; len(tables) > 0 {
			t.Errorf("%s is stored in %v", what, tables)
		}
		if signature == "" {
			continue
		}
		if tables := stored[key]; len(tables) > 0 {
			t.Errorf("the key of %s is stored in %v", what, tables)
		}
		if tables := stored[signature]; !slices.Equal(tables, []string{"oauth_tokens"}) {
			t.Errorf("the signature of %s is stored in %v, want oauth_tokens", what, tables)
		}
	}
	if a := c.exchange(code, verifier); a.Error != "invalid_grant" {
		t.Errorf("a reused code: %+v", a)
	}
	if got := mcpStatus(t, resource, first.AccessToken); got != 401 {
		t.Errorf("the reused code's access token still works: %d", got)
	}

	// An expired code (5 minutes pass: its expiry, in its row and in the
	// session fosite checks, moves to the past) is refused with a
	// description, and nothing is issued for its grant. The code's row is
	// its grant's, found by its PKCE challenge's row (the code's form keeps
	// nothing).
	verifier, challenge = pkce()
	q = s.consent(c.authorizeURL(resource, challenge), "alice@example.test", "approve")
	var grant string
	s.scan(&grant, `SELECT request_id FROM oauth_tokens WHERE kind = 'pkce' AND request->'form'->'code_challenge'->>0 = $1`, challenge)
	if n := s.exec(`UPDATE oauth_tokens SET expires_at = now() - interval '1 second',
		request = jsonb_set(request, '{session,expires_at,authorize_code}', to_jsonb(now() - interval '1 second'))
		WHERE request_id = $1 AND kind IN ('code', 'pkce')`, grant); n != 2 {
		t.Fatalf("the code to expire: %d rows, want its code and its PKCE challenge", n)
	}
	// The description says the code expired (fosite's own is its generic
	// one for every invalid grant).
	if a := c.exchange(q.Get("code"), verifier); a.Error != "invalid_grant" || !strings.Contains(a.Description, "the authorization code expired") || a.AccessToken != "" || a.RefreshToken != "" {
		t.Errorf("an expired code: %+v", a)
	}
	if n := s.count(`SELECT count(*) FROM oauth_tokens WHERE kind IN ('access', 'refresh') AND request_id = $1`, grant); n != 0 {
		t.Errorf("an expired code's grant has %d tokens", n)
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
	// A client that names no resource (MCP 2025-03-26) pasted
	// /mcp/demo-a: its token for /mcp works there, for the agent alice
	// connected in demo-a, and not on another account's URL.
	if code := mcpStatus(t, resource, got.AccessToken); code != 200 {
		t.Errorf("a token for /mcp (its agent in demo-a) on /mcp/demo-a: %d, want 200", code)
	}
	if code := mcpStatus(t, s.base+"/mcp/demo-b", got.AccessToken); code != 401 {
		t.Errorf("a token for /mcp (its agent in demo-a) on /mcp/demo-b: %d, want 401", code)
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

	// Nothing in the log, nor in the database, holds a code or a token.
	issued := []string{code, first.AccessToken, first.RefreshToken, rotated.AccessToken, rotated.RefreshToken, got.RefreshToken}
	for _, secret := range issued {
		if strings.Contains(s.log(), secret) {
			t.Errorf("the log holds a code or token")
		}
	}
	if stored := s.storedIn(issued...); len(stored) > 0 {
		t.Errorf("codes or tokens are stored: %d of %d", len(stored), len(issued))
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
