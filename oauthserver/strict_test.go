package oauthserver

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

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

// TestAuthorizeRefusesWhatCanNeverWork: the authorization request is held
// to what the person's consent can lead to. An S256 code_challenge is
// BASE64URL(SHA-256) of the verifier, 43 characters (RFC 7636 §4.2): one
// that is not could never be matched, yet the person consented, an agent
// was made, and the client learnt only at the token endpoint. A loopback
// redirect may differ from the registered one in its port only (RFC 8252
// §7.3): fosite let a user name through, and ports no browser can reach.
// A redirect URI without a host (kept before registration refused it)
// would show none on the consent screen. Each is refused before any consent, naming the parameter; no agent is
// made.
func TestAuthorizeRefusesWhatCanNeverWork(t *testing.T) {
	t.Parallel()
	e := newAcme(t)
	pool, ctx, alice, state, s := e.pool, e.ctx, e.alice, e.state, e.s
	c, err := state.SaveClient(ctx, app.OAuthClient{ID: "tsc_strict", Kind: app.OAuthClientRegistered, Name: "Strict",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb", "https:evil.example"}})
	if err != nil {
		t.Fatal(err)
	}
	_, challenge := pkceS256()
	params := func(kv ...string) url.Values {
		q := url.Values{"response_type": {"code"}, "client_id": {c.ID}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
			"state": {"state-12345"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
			"resource": {"http://taasky.test/mcp/acme"}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	for _, bad := range [][]string{
		{"code_challenge", "x"},
		{"code_challenge", strings.Repeat("a", 42)},
		{"code_challenge", strings.Repeat("a", 44)},
		{"code_challenge", strings.Repeat("a", 42) + "="},
		{"code_challenge", strings.Repeat("a", 42) + "+"},
		{"redirect_uri", "http://user:pw@127.0.0.1:9999/cb"},
		{"redirect_uri", "http://127.0.0.1:99999/cb"},
		{"redirect_uri", "http://127.0.0.1:0/cb"},
		{"redirect_uri", "https:evil.example"}, // registered before registration refused it
		{"client_id", ""},
	} {
		loc, err := s.Approve(ctx, params(bad...), alice.ID, "acme")
		if app.ErrorCodeOf(err) != app.ErrInvalid || !strings.Contains(err.Error(), bad[0]) || loc != "" {
			t.Errorf("%s=%s: answered %q, %v; want it refused naming %s", bad[0], bad[1], loc, err, bad[0])
		}
	}
	var agents int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM oauth_agents`).Scan(&agents); err != nil || agents != 0 {
		t.Errorf("%d agents connected by refused requests (%v)", agents, err)
	}
	// The port still may change (RFC 8252 §7.3).
	if loc, err := s.Approve(ctx, params("redirect_uri", "http://127.0.0.1:41234/cb"), alice.ID, "acme"); err != nil || !strings.Contains(loc, "code=") {
		t.Errorf("another loopback port: %q, %v", loc, err)
	}
}

// TestTokenEndpointErrors: RFC 6749 §5.2's codes: a grant type Taasky does
// not issue is unsupported_grant_type (fosite said invalid_request, with
// a hint about redirect URIs).
func TestTokenEndpointErrors(t *testing.T) {
	t.Parallel()
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pgtest.New(t)), Accounts: app.NewAccounts(nil)})
	if err != nil {
		t.Fatal(err)
	}
	post := mounted(t, s)
	for _, grant := range []string{"client_credentials", "password", "urn:ietf:params:oauth:grant-type:device_code"} {
		status, m := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {grant}, "client_id": {"tsc_x"}}.Encode())
		desc, _ := m["error_description"].(string)
		if status != 400 || m["error"] != "unsupported_grant_type" || !strings.Contains(desc, "grant_type") {
			t.Errorf("grant_type %s: %d %v, want 400 unsupported_grant_type", grant, status, m)
		}
	}
}

func pkceS256() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestRevocationSaysWhatHappened: RFC 7009 §2.1 and §2.2.1. fosite answers
// 200 to every revocation it does not refuse for the request's form: one
// of another client's token was "revoked" (and was not), and one the
// database failed to revoke too, so the client forgot a token that still
// worked. Another client's token is unauthorized_client (400); a failure
// is 503 temporarily_unavailable (retry); an unknown token is still 200.
func TestRevocationSaysWhatHappened(t *testing.T) {
	t.Parallel()
	e := newAcme(t)
	pool, ctx, state, s := e.pool, e.ctx, e.state, e.s
	for _, id := range []string{"tsc_mine", "tsc_other"} {
		if _, err := state.SaveClient(ctx, app.OAuthClient{ID: id, Kind: app.OAuthClientRegistered, Name: "C",
			RedirectURIs: []string{"http://127.0.0.1:9999/cb"}}); err != nil {
			t.Fatal(err)
		}
	}
	post := mounted(t, s)
	form := "application/x-www-form-urlencoded"
	access, refresh := exchangeCode(t, e, post, "tsc_mine")
	works := func(what string) {
		t.Helper()
		if _, err := s.AuthenticateAccessToken(ctx, access, "http://taasky.test/mcp/acme"); err != nil {
			t.Errorf("%s, the access token: %v", what, err)
		}
	}

	status, m := post(http.MethodPost, "/oauth/revoke", form, url.Values{"token": {refresh}, "client_id": {"tsc_other"}}.Encode())
	if status != 400 || m["error"] != "unauthorized_client" {
		t.Errorf("another client's refresh token revoked: %d %v, want 400 unauthorized_client", status, m)
	}
	works("after another client's revocation")

	if _, err := pool.Exec(ctx, `ALTER TABLE oauth_tokens RENAME TO oauth_tokens_away`); err != nil {
		t.Fatal(err)
	}
	status, m = post(http.MethodPost, "/oauth/revoke", form, url.Values{"token": {refresh}, "client_id": {"tsc_mine"}}.Encode())
	if _, err := pool.Exec(ctx, `ALTER TABLE oauth_tokens_away RENAME TO oauth_tokens`); err != nil {
		t.Fatal(err)
	}
	if status != 503 || m["error"] != "temporarily_unavailable" {
		t.Errorf("a revocation the database failed: %d %v, want 503 temporarily_unavailable", status, m)
	}
	works("after a failed revocation")

	if status, m := post(http.MethodPost, "/oauth/revoke", form, url.Values{"token": {"ory_rt_unknown.unknown"}, "client_id": {"tsc_mine"}}.Encode()); status != 200 {
		t.Errorf("an unknown token: %d %v, want 200 (RFC 7009 §2.2)", status, m)
	}
	if status, m := post(http.MethodPost, "/oauth/revoke", form, url.Values{"token": {refresh}, "client_id": {"tsc_mine"}}.Encode()); status != 200 {
		t.Errorf("its own refresh token: %d %v", status, m)
	}
	if _, err := s.AuthenticateAccessToken(ctx, access, "http://taasky.test/mcp/acme"); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("after the revocation, the access token: %v", err)
	}
}

// TestConcurrentReuseRevokes: two exchanges of one code (or two refreshes
// with one refresh token) at the same moment are a reuse as much as two
// in a row (RFC 6749 §4.1.2 and §10.4, RFC 9700 §4.14.2): one wins, the
// other is invalid_grant, and the winner's tokens are revoked. They were
// not: the loser got a 500 server_error and the winner kept its tokens,
// so whoever raced a stolen code or refresh token and won kept the grant.
// The database's row lock stands for the moment: both requests wait on
// it, then race.
func TestConcurrentReuseRevokes(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_race")
	pool, ctx, s, post, token := e.pool, e.ctx, e.s, e.post, e.token
	const resource = "http://taasky.test/mcp/acme"
	// race sends form twice while kind's row of the grant is locked, and
	// returns both answers once the lock is let go.
	race := func(kind string, form url.Values) [2]map[string]any {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if _, err := tx.Exec(ctx, `SELECT 1 FROM oauth_tokens WHERE kind = $1 AND active FOR UPDATE`, kind); err != nil {
			t.Fatal(err)
		}
		var answers [2]map[string]any
		done := make(chan struct{}, 2)
		form.Set("client_id", "tsc_race")
		body := form.Encode()
		for i := range answers {
			go func() {
				status, m := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", body)
				m["status"] = status
				answers[i] = m
				done <- struct{}{}
			}()
		}
		for waiting := 0; waiting < 2; {
			var err error
			if waiting, err = pgtest.LockWaits(ctx, pool); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
				t.Fatal("an exchange did not wait for the locked row")
			case <-time.After(10 * time.Millisecond):
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		<-done
		<-done
		return answers
	}
	check := func(what string, answers [2]map[string]any) {
		t.Helper()
		var won map[string]any
		for _, a := range answers {
			switch {
			case a["status"] == 200:
				won = a
			case a["status"] != 400 || a["error"] != "invalid_grant":
				t.Errorf("%s: the other answer is %v, want 400 invalid_grant", what, a)
			}
		}
		if won == nil {
			t.Fatalf("%s: no exchange won: %v", what, answers)
		}
		access, _ := won["access_token"].(string)
		if _, err := s.AuthenticateAccessToken(ctx, access, resource); app.ErrorCodeOf(err) != app.ErrUnauthorized {
			t.Errorf("%s: the winner's access token still works (%v)", what, err)
		}
		if status, m := token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {won["refresh_token"].(string)}}); status != 400 {
			t.Errorf("%s: the winner's refresh token still works: %d %v", what, status, m)
		}
	}

	approve := func() (code, verifier string) { return approveCode(t, e, "tsc_race") }
	code, verifier := approve()
	exchange := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}}
	check("one code exchanged twice at once", race("code", exchange))

	code, verifier = approve()
	exchange.Set("code", code)
	exchange.Set("code_verifier", verifier)
	status, tok := token(exchange)
	if status != 200 {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	check("one refresh token used twice at once", race("refresh", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}}))
}

// TestRegisterLimitCountsTheClient: Dynamic Client Registration's limit
// counts against the client's address as the dashboard's limits do
// (TRUSTED_PROXIES, an IPv6 client as its /64). It counted the
// connection's: behind the proxy every installation has, anyone's ten
// registrations a minute refused every other assistant's, and an IPv6
// client had a fresh limit per address of its /64.
func TestRegisterLimitCountsTheClient(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	s, err := New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: app.NewOAuth(pool), Accounts: app.NewAccounts(pool),
		RegisterLimit: ratelimit.Limit{Rate: 0.0001, Burst: 2}, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	if err != nil {
		t.Fatal(err)
	}
	register := func(peer, forwarded string) int {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodPost, "/oauth/register", strings.NewReader(`{"redirect_uris":["https://a.example/cb"]}`))
		r.RemoteAddr = peer
		if forwarded != "" {
			r.Header.Set("X-Forwarded-For", forwarded)
		}
		s.registerClient(w, r)
		return w.Code
	}
	for i, c := range []struct {
		peer, forwarded string
		want            int
	}{
		{"10.0.0.1:5000", "198.51.100.1", 201},
		{"10.0.0.1:5000", "198.51.100.1", 201},
		{"10.0.0.1:5000", "198.51.100.1", 429},
		{"10.0.0.1:5000", "198.51.100.2", 201},               // another client behind the same proxy
		{"10.0.0.1:5000", "198.51.100.1, 198.51.100.2", 201}, // 198.51.100.1 written by the client
		{"10.0.0.1:5000", "198.51.100.1, 198.51.100.2", 429},
		{"192.0.2.9:5000", "198.51.100.3", 201}, // not a trusted proxy: its own address counts
		{"192.0.2.9:5000", "198.51.100.4", 201},
		{"192.0.2.9:5000", "198.51.100.5", 429},
		{"[2001:db8:1:2::1]:5000", "", 201},
		{"[2001:db8:1:2::2]:5000", "", 201},
		{"[2001:db8:1:2::3]:5000", "", 429}, // the same /64
		{"[2001:db8:1:3::1]:5000", "", 201},
	} {
		if got := register(c.peer, c.forwarded); got != c.want {
			t.Errorf("%d: from %s for %q: %d, want %d", i, c.peer, c.forwarded, got, c.want)
		}
	}
}

// TestDisconnectDuringARefresh: Disconnect (Settings) ends every token of
// the agent, even one a refresh was issuing at that moment. The refresh's
// new tokens, committed after the disconnection's DELETE began, were not
// seen by it and survived: refused at the door while the agent stayed
// disconnected, but when its person connected the same client again, the
// agent's grant came back to whoever held them (the device the person
// disconnected, refreshing in a loop to meet the moment). Here the
// refresh waits (a lock the test holds on the grant's access token) with
// the old refresh token spent, the disconnection starts, then both go on.
func TestDisconnectDuringARefresh(t *testing.T) {
	t.Parallel()
	e := acmeWithClient(t, "tsc_lost")
	pool, ctx, state, s, post, token := e.pool, e.ctx, e.state, e.s, e.post, e.token
	const resource = "http://taasky.test/mcp/acme"
	connect := func() map[string]any {
		t.Helper()
		code, verifier := approveCode(t, e, "tsc_lost")
		status, tok := token(url.Values{"grant_type": {"authorization_code"}, "code": {code},
			"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}})
		if status != 200 {
			t.Fatalf("exchange: %d %v", status, tok)
		}
		return tok
	}
	waiting := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			got, err := pgtest.LockWaits(ctx, pool)
			if err != nil {
				t.Fatal(err)
			}
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d requests wait on a lock, want %d", got, n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	first := connect()
	var agentID int64
	if err := pool.QueryRow(ctx, `SELECT agent_id FROM oauth_agents`).Scan(&agentID); err != nil {
		t.Fatal(err)
	}
	hold, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, `SELECT 1 FROM oauth_tokens WHERE kind = 'access' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	refreshed := make(chan map[string]any, 1)
	body := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first["refresh_token"].(string)}, "client_id": {"tsc_lost"}}.Encode()
	go func() {
		_, m := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", body)
		refreshed <- m
	}()
	waiting(1)
	disconnected := make(chan error, 1)
	go func() { disconnected <- state.Disconnect(ctx, "acme", agentID) }()
	waiting(2)
	if err := hold.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-disconnected; err != nil {
		t.Fatal(err)
	}
	second := <-refreshed
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM oauth_tokens WHERE agent_id = $1 AND kind IN ('access', 'refresh')`, agentID).Scan(&left); err != nil || left != 0 {
		t.Errorf("after the disconnection, %d of the agent's tokens are left (%v)", left, err)
	}

	connect() // the person connects the client again, on another device
	if rt, ok := second["refresh_token"].(string); ok {
		if status, m := token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}); status == 200 {
			access, _ := m["access_token"].(string)
			_, err := s.AuthenticateAccessToken(ctx, access, resource)
			t.Errorf("the refresh token issued while the agent was disconnected works again once it is reconnected (the door: %v)", err)
		}
	}
	if access, ok := second["access_token"].(string); ok {
		if _, err := s.AuthenticateAccessToken(ctx, access, resource); err == nil {
			t.Errorf("the access token issued while the agent was disconnected works again once it is reconnected")
		}
	}

	// A code stored just after the agent was disconnected (the consent
	// and the disconnection at the same moment) is not spent: invalid_grant.
	code, verifier := approveCode(t, e, "tsc_lost")
	if _, err := pool.Exec(ctx, `UPDATE oauth_agents SET disconnected_at = now()`); err != nil {
		t.Fatal(err)
	}
	if status, m := token(url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}}); status != 400 || m["error"] != "invalid_grant" {
		t.Errorf("a code of a disconnected agent: %d %v, want 400 invalid_grant", status, m)
	}
}

// acme is an account acme of alice's, a server on a database of its own,
// and a registered client with a loopback redirect URI (acmeWithClient):
// post reaches the mounted server, token posts a form to its token
// endpoint as the client.
type acme struct {
	pool     *pgxpool.Pool
	ctx      context.Context
	accounts *app.Accounts
	alice    app.User
	state    *app.OAuth
	s        *Server
	post     func(method, path, contentType, body string) (int, map[string]any)
	token    func(url.Values) (int, map[string]any)
}

func acmeWithClient(t *testing.T, clientID string) acme {
	t.Helper()
	e := newAcme(t)
	if _, err := e.state.SaveClient(e.ctx, app.OAuthClient{ID: clientID, Kind: app.OAuthClientRegistered, Name: "C",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb"}}); err != nil {
		t.Fatal(err)
	}
	e.post = mounted(t, e.s)
	e.token = func(form url.Values) (int, map[string]any) {
		form.Set("client_id", clientID)
		return e.post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", form.Encode())
	}
	return e
}

// newAcme is acme without its client.
func newAcme(t *testing.T) acme {
	t.Helper()
	e := acme{pool: pgtest.New(t), ctx: t.Context()}
	e.accounts = app.NewAccounts(e.pool)
	if _, err := e.accounts.CreateAccount(e.ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	var err error
	if e.alice, err = e.accounts.UserByEmail(e.ctx, "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	e.state = app.NewOAuth(e.pool)
	if e.s, err = New(Config{BaseURL: "http://taasky.test", Secret: make([]byte, 32), State: e.state, Accounts: e.accounts}); err != nil {
		t.Fatal(err)
	}
	return e
}

// exchangeCode is clientID's code from alice's consent (approveCode)
// exchanged at the token endpoint through post (mounted): its access and
// refresh tokens.
func exchangeCode(t *testing.T, e acme, post func(method, path, contentType, body string) (int, map[string]any), clientID string) (access, refresh string) {
	t.Helper()
	code, verifier := approveCode(t, e, clientID)
	status, tok := post(http.MethodPost, "/oauth/token", "application/x-www-form-urlencoded", url.Values{"grant_type": {"authorization_code"},
		"code": {code}, "redirect_uri": {"http://127.0.0.1:9999/cb"}, "code_verifier": {verifier}, "client_id": {clientID}}.Encode())
	access, _ = tok["access_token"].(string)
	refresh, _ = tok["refresh_token"].(string)
	if status != 200 || access == "" || refresh == "" {
		t.Fatalf("token: %d %v", status, tok)
	}
	return access, refresh
}

// approveCode is alice's consent for clientID (its loopback redirect URI,
// PKCE S256, the resource of acme): the code it issues and the verifier
// that spends it.
func approveCode(t *testing.T, e acme, clientID string) (code, verifier string) {
	t.Helper()
	verifier, challenge := pkceS256()
	loc, err := e.s.Approve(e.ctx, url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:9999/cb"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "resource": {"http://taasky.test/mcp/acme"}}, e.alice.ID, "acme")
	u, _ := url.Parse(loc)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("approve: %q %v", loc, err)
	}
	return u.Query().Get("code"), verifier
}
