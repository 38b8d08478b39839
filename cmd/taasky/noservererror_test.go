package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
)

// garbageFields are the names the doors read from forms and query
// strings (dashboard, oauthserver, the dev issuer): each is sent with
// every value of garbageValues.
var garbageFields = []string{"account", "after", "agent", "answer", "answered", "auth", "client_id", "code", "code_challenge",
	"code_challenge_method", "confirm", "confirmation_id", "currency", "cursor", "decision", "device", "done", "email", "end",
	"endpoint", "error", "error_description", "events", "grant_type", "id", "language", "name", "next", "p256dh", "receipt",
	"redirect_uri", "refresh_token", "resource", "response_type", "role", "scope", "side", "slug", "start", "state",
	"subject_hash", "time_zone", "token", "url", "v", "verdict", "welcome", "zone", "amount", "fee", "day"}

// garbageValues are a person's (or a stranger's) mistakes and worse.
var garbageValues = []string{"", "\xff\xfe", "a\x00b", strings.Repeat("x", 10<<10), "-1", "0", "9223372036854775808",
	"-9223372036854775809", "1e400", "0000-00-00", "99999-12-31", "Mars/Base", "xx-ZZ", "../../etc/passwd", "%2F..%2F",
	"<script>x</script>", "' OR 1=1 --", "[]", "{}", "\u202e", "2026-02-30T25:61:00Z"}

// garbageParams are what a path parameter is given besides real ids of
// another account (added by the test).
var garbageParams = []string{"0", "-1", "abc", "9223372036854775808", "99999999999999999999", strings.Repeat("7", 3000),
	"%2F..%2F", "..", "%00", "%FF", "a%2Fb", "1%20OR%201%3D1", "%E2%80%AE", "ACME", "nope"}

// TestNoRouteAnswersServerError walks every route the process serves
// (the Fiber app's route table: a route added later is walked too) as a
// stranger, a person signed in to no account, a member, an admin and an
// owner (signed in through the dev issuer, with their CSRF token) and an
// agent (its key), with malformed path parameters, query strings, form
// and JSON bodies, content types and methods. None may be answered 5xx,
// leak a Go error or SQL, or log at the error level: a person's mistake
// is theirs to be told of, not the operator's.
func TestNoRouteAnswersServerError(t *testing.T) {
	t.Parallel()
	srv, web, base, logged := walkedServer(t)

	// Two accounts: acme, with its owner, an admin and a member (whose
	// agent has a room), and other, whose ids are a stranger's to acme.
	acc := srv.accounts
	bg := context.Background()
	for _, a := range []struct{ slug, owner string }{{"acme", "owner@example.test"}, {"other", "else@example.test"}} {
		if _, err := acc.CreateAccount(bg, a.slug, "Account "+a.slug, a.owner); err != nil {
			t.Fatal(err)
		}
	}
	for email, role := range map[string]app.MemberRole{"admin@example.test": app.MemberRoleAdmin, "member@example.test": app.MemberRoleMember} {
		if err := acc.AddMemberAsOperator(bg, "acme", email, role); err != nil {
			t.Fatal(err)
		}
	}
	memberAgent, memberKey, err := acc.CreateAgent(bg, "acme", "member's agent", "member@example.test")
	if err != nil {
		t.Fatal(err)
	}
	otherAgent, otherKey, err := acc.CreateAgent(bg, "other", "other's agent", "else@example.test")
	if err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"},"day":{"type":"date","label":"Day"}}`)
	if _, err := srv.rooms.Open(bg, memberAgent, app.OpenInput{Schema: schema}); err != nil {
		t.Fatal(err)
	}
	otherRoom, err := srv.rooms.Open(bg, otherAgent, app.OpenInput{Schema: schema, InviteEmail: "guest@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	elseUser, err := acc.UserByEmail(bg, "else@example.test")
	if err != nil {
		t.Fatal(err)
	}
	params := append(slices.Clone(garbageParams), strconv.FormatInt(otherRoom.View.RoomID, 10), strconv.FormatInt(otherAgent.ID, 10),
		strconv.FormatInt(otherKey.ID, 10), strconv.FormatInt(elseUser.ID, 10), "other", otherRoom.InviteCode)

	// The people, each with their browser and its CSRF token.
	type person struct {
		name   string
		client *http.Client
		csrf   string
		key    string
	}
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	// The agent (the member's key) walks before the people, whose tries
	// may revoke its key.
	people := []*person{{name: "stranger", client: &http.Client{CheckRedirect: noRedirect}},
		{name: "agent", client: &http.Client{CheckRedirect: noRedirect}, key: memberKey.Key}}
	enter := func(p *person) {
		browser, resp, page := signIn(t, base, "/settings", p.name+"@example.test")
		if resp.StatusCode != 200 {
			t.Fatalf("%s signs in: %d %s", p.name, resp.StatusCode, page)
		}
		m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("%s: no CSRF token on /settings", p.name)
		}
		browser.CheckRedirect = noRedirect
		p.client, p.csrf = browser, m[1]
	}
	// signedIn: p's session still holds (a walk signed out walks as a
	// stranger).
	signedIn := func(p *person) bool {
		resp, err := p.client.Get(base + "/settings")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	for _, who := range []string{"nobody", "member", "admin", "owner"} {
		p := &person{name: who}
		enter(p)
		people = append(people, p)
	}

	// What would end a person's session or membership is sent last.
	last := func(path string) bool {
		for _, s := range []string{"/logout", "/sessions/end", "/leave", "/delete", "/remove"} {
			if strings.HasSuffix(path, s) {
				return true
			}
		}
		return false
	}
	type route struct{ method, path string }
	var routes []route
	seen := map[route]bool{}
	for _, r := range web.GetRoutes(true) {
		if r.Method == fiber.MethodHead || r.Method == fiber.MethodConnect || r.Method == fiber.MethodTrace {
			continue
		}
		rt := route{r.Method, r.Path}
		if !seen[rt] {
			seen[rt] = true
			routes = append(routes, rt)
		}
	}
	slices.SortStableFunc(routes, func(a, b route) int {
		switch la, lb := last(a.path), last(b.path); {
		case la && !lb:
			return 1
		case lb && !la:
			return -1
		}
		return 0
	})
	if len(routes) < 80 {
		t.Fatalf("only %d routes: the app is not the whole process's", len(routes))
	}

	// fill gives each ":param" (and "*") of path the value v.
	fill := func(path, v string) string {
		parts := strings.Split(path, "/")
		for i, p := range parts {
			if strings.HasPrefix(p, ":") || p == "*" || p == "+" {
				parts[i] = v
			}
		}
		return strings.Join(parts, "/")
	}
	realValue := map[string]string{":slug": "acme", ":account": "acme", ":id": "1", ":user": "1", ":msg": "1", ":token": "x", ":code": "x",
		":file": "app.css", ":endpoint": "token", "*": "x"}
	fillReal := func(path string) string {
		parts := strings.Split(path, "/")
		for i, p := range parts {
			if v, ok := realValue[p]; ok {
				parts[i] = v
			} else if strings.HasPrefix(p, ":") {
				parts[i] = "1"
			}
		}
		return strings.Join(parts, "/")
	}

	type try struct {
		method, path, ctype string
		body                []byte
		header              map[string]string
	}
	// Each person sends each route a few tries; what a try holds (the
	// path parameter, the query's value, the body's shape) turns with
	// its number and the person's, so that the people together send each
	// route every parameter and every body.
	fields := func(v string, repeat bool) url.Values {
		vals := url.Values{}
		if len(v) > 100 {
			// One long field (a request line past fasthttp's 4 KiB is
			// refused before any route: TestBadInputHTTP).
			return url.Values{"name": {v[:3000]}, "next": {"x"}}
		}
		for _, f := range garbageFields {
			if repeat {
				vals[f] = []string{v, "2", ""}
			} else {
				vals.Set(f, v)
			}
		}
		return vals
	}
	type shape func(p *person, v string) (ctype string, body []byte, header map[string]string)
	formOf := func(vals url.Values, p *person, csrf bool) []byte {
		if csrf && p.csrf != "" {
			vals.Set("_csrf", p.csrf)
		}
		return []byte(vals.Encode())
	}
	const formType = "application/x-www-form-urlencoded"
	shapes := []shape{
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, formOf(fields(v, false), p, true), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, formOf(fields(v, true), p, true), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, formOf(url.Values{}, p, true), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) { return formType, nil, nil },
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, formOf(fields(v, false), p, false), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, append(formOf(url.Values{}, p, true), "&%zz&=&&name=%ff%00&a[]=1&a[b]=2"...), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, append(formOf(url.Values{}, p, true), ("&name=" + strings.Repeat("y", 1<<20))...), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "", formOf(fields(v, false), p, true), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "text/plain; charset=utf-7", formOf(fields(v, false), p, true), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			b, _ := json.Marshal(map[string]any{"_csrf": p.csrf, "name": v, "email": []int{1}, "id": json.Number("1e999")})
			return "application/json", b, nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "application/json", []byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":{},"method":"initialize","params":[]}]`), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "negotiation_open", "arguments": map[string]any{"subject_schema": v, "invite_email": v}}})
			return "application/json", b, map[string]string{"Mcp-Session-Id": "\xffnope", "MCP-Protocol-Version": v}
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "application/json", []byte(`{"redirect_uris":["javascript:x","` + url.QueryEscape(v) + `"],"client_name":"\xff","grant_types":"x","token_endpoint_auth_method":[]}`), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "application/json", []byte(`{"a":`), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "application/json", []byte("\xff\xfe\x00"), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "multipart/form-data; boundary=zz", []byte("--zz\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n" + p.csrf +
				"\r\n--zz\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n" + v + "\r\n--zz--\r\n"), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return "multipart/form-data", []byte("--zz\r\n"), nil
		},
		func(p *person, v string) (string, []byte, map[string]string) {
			return formType, formOf(fields(v, false), p, true), map[string]string{"Accept-Language": "xx-ZZ,*;q=abc",
				"Cookie": "taasky_tz=Mars/Base; taasky_lang=xx-ZZ; taasky_seats=%ff", "If-None-Match": "\xff",
				"Range": "bytes=99999999999999999999-", "Accept": "text/event-stream"}
		},
	}
	tries := func(pi int, p *person, r route) []try {
		var out []try
		method := r.method
		if method == "USE" || method == "ALL" {
			method = http.MethodGet
		}
		// GETs: two tries of text PostgreSQL cannot hold, then three of
		// the values and parameters in turn. Bodies: the same two, then
		// the shapes in turn (the agent and the owner more), then three
		// parameters.
		n := 5
		body := method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch || method == http.MethodDelete
		if body {
			n = 5
			if p.key != "" || p.name == "owner" {
				n = 10
			}
		}
		for i := range n {
			k := pi*7 + i // the people's tries together: every value and shape
			path := fillReal(r.path)
			if strings.ContainsAny(r.path, ":*+") && !body && i >= 2 {
				path = fill(r.path, params[(pi*3+i-2)%len(params)])
			}
			// The first two tries: text PostgreSQL cannot hold in every
			// field, on the route's real path; then the values in turn.
			v := garbageValues[k%len(garbageValues)]
			switch i {
			case 0:
				v = "a\x00b"
			case 1:
				v = "\xff\xfe"
			}
			q := fields(v, i%3 == 1)
			if i%3 == 2 {
				q.Set("%zz", "1")
				q["a[]"], q["a[b]"] = []string{"1"}, []string{"2"}
			}
			x := try{method: method, path: path + "?" + q.Encode()}
			if body {
				x.ctype, x.body, x.header = shapes[k%len(shapes)](p, v)
			} else if i == n-1 {
				x.header = map[string]string{"Accept-Language": "xx-ZZ,*;q=abc", "Cookie": "taasky_tz=Mars/Base; taasky_seats=%ff",
					"If-None-Match": "\xff", "Range": "bytes=99999999999999999999-"}
			}
			out = append(out, x)
		}
		if body && strings.ContainsAny(r.path, ":*+") {
			// The bodies went to the real path; now the parameters.
			for i := range 3 {
				out = append(out, try{method: method, path: fill(r.path, params[(pi*3+i+len(params)/2)%len(params)]), ctype: formType,
					body: formOf(url.Values{}, p, true)})
			}
		}
		if pi == 0 { // the stranger: every other method
			for _, m := range []string{http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodGet, http.MethodPost} {
				if m != r.method {
					out = append(out, try{method: m, path: fillReal(r.path)})
				}
			}
		}
		return out
	}

	var mu sync.Mutex
	fails, sent := map[string]string{}, 0
	failed := func(key, what string) {
		mu.Lock()
		defer mu.Unlock()
		key += " " + what[:3]
		if _, ok := fails[key]; !ok {
			fails[key] = what
		}
	}
	send := func(p *person, r route, x try) int {
		reqCtx, cancel := context.WithTimeout(bg, 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(reqCtx, x.method, base+x.path, bytes.NewReader(x.body))
		if err != nil {
			return 0 // a path Go's client will not send
		}
		if x.ctype != "" {
			req.Header.Set("Content-Type", x.ctype)
		}
		if p.key != "" {
			req.Header.Set("Authorization", "Bearer "+p.key)
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		for k, v := range x.header {
			req.Header[k] = []string{v}
		}
		resp, err := p.client.Do(req)
		if err != nil {
			// A request line and headers past fasthttp's 4 KiB, or a body
			// past 4 MiB, is refused before any handler and read at most
			// a second or 64 MiB further (fiberhttp.LingerOnRefusal): the
			// client may not read the refusal.
			if reqCtx.Err() == nil && len(x.path) < 3<<10 && len(x.body) < 1<<20 {
				failed(r.method+" "+r.path, fmt.Sprintf("%s %s %.120q as %s: %v", x.method, x.ctype, x.path, p.name, err))
			}
			return 0
		}
		var body []byte
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		}
		resp.Body.Close()
		mu.Lock()
		sent++
		mu.Unlock()
		key := r.method + " " + r.path
		if resp.StatusCode >= 500 {
			failed(key, fmt.Sprintf("%d to %s %.120q (%s %.80q) as %s: %.300s", resp.StatusCode, x.method, x.path, x.ctype, x.body, p.name, body))
		} else if m := leakIn(body); m != "" && (resp.StatusCode >= 400 || bytes.Contains(body, []byte(`"error":{`))) {
			failed(key+" leak", fmt.Sprintf("%d to %s %.120q (%s %.80q) as %s says %q: %.300s", resp.StatusCode, x.method, x.path, x.ctype, x.body, p.name, m, body))
		}
		if loc := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && strings.HasPrefix(loc, "/login") {
			// Sent to sign in: refused, as a 401 is (a form that went
			// through is also answered with a redirect).
			return http.StatusUnauthorized
		}
		return resp.StatusCode
	}
	// What a person's mistake may not change. (Sessions and sign-ins
	// come and go with the walk; an OAuth registration is no mistake.)
	state := func() string {
		var out string
		err := srv.pool.QueryRow(bg, `SELECT concat_ws(' ',
			(SELECT string_agg(slug || ':' || name || ':' || (deleting_at IS NULL), ',' ORDER BY id) FROM accounts),
			(SELECT string_agg(email || ':' || coalesce(time_zone, '') || ':' || coalesce(language, ''), ',' ORDER BY id) FROM users),
			(SELECT string_agg(account_id || ':' || user_id || ':' || role, ',' ORDER BY account_id, user_id) FROM memberships),
			(SELECT count(*) FROM agents), (SELECT count(*) FROM agent_keys WHERE revoked_at IS NULL),
			(SELECT count(*) FROM account_invitations), (SELECT count(*) FROM webhook_endpoints),
			(SELECT count(*) FROM push_subscriptions), (SELECT count(*) FROM rooms), (SELECT count(*) FROM room_events),
			(SELECT count(*) FROM confirmations), (SELECT count(*) FROM audit_log), (SELECT count(*) FROM notification_prefs))`).Scan(&out)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	const workers = 4
	for pi, p := range people {
		for _, r := range routes {
			if p.name != "stranger" && p.name != "agent" && strings.HasPrefix(r.path, devIssuerPath) {
				continue // the dev issuer's pages: once is enough
			}
			xs := tries(pi, p, r)
			// Four at once; a route whose every try was refused changed
			// nothing.
			was := state()
			var wg sync.WaitGroup
			var accepted atomic.Bool
			ch := make(chan try)
			for range workers {
				wg.Go(func() {
					for x := range ch {
						if status := send(p, r, x); status < 400 {
							accepted.Store(true)
						}
					}
				})
			}
			for _, x := range xs {
				ch <- x
			}
			close(ch)
			wg.Wait()
			if now := state(); !accepted.Load() && now != was {
				failed(r.method+" "+r.path+" changed", fmt.Sprintf("every try refused as %s, and stored\n%s\nbecame\n%s", p.name, was, now))
			}
			if p.csrf != "" && accepted.Load() && !signedIn(p) {
				if !last(r.path) {
					t.Errorf("%s was signed out by a try of %s %s", p.name, r.method, r.path)
				}
				enter(p)
			}
		}
	}
	t.Logf("%d routes, %d people, %d requests answered", len(routes), len(people), sent)

	keys := make([]string, 0, len(fails))
	for k := range fails {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Errorf("%s: %s", k, fails[k])
	}
	for _, line := range strings.Split(logged.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("logged an error for a person's mistake: %.600s", line)
		}
	}
}

// leaks are what an answer may not quote of Go's or SQL's internals, in
// lower case; a Go source line too (goLine).
var (
	leaks = []string{"sql", "pgx", "goroutine ", "panic", "runtime error", "invalid memory", "nil pointer", "strconv.",
		"json: cannot", "unexpected eof", "context deadline", "go struct", "go value", "interface {}", "jsonrpc2.", "*mcp."}
	goLine = regexp.MustCompile(`\.go:\d`)
	// csrfValue is a form's CSRF token, which leakIn does not read.
	csrfValue = regexp.MustCompile(`name="_csrf" value="[^"]*"`)
)

// leakIn says the first leak the answer body holds, in any case ("" for
// none). It lowers the body once and looks for each literal: a
// case-blind regexp of them all took most of the walk's time (more still
// under -race) on the walk's 5,000 answers.
func leakIn(body []byte) string {
	// A page's CSRF token is random text: one that spelled "pGX" made a
	// person's page a leak.
	low := bytes.ToLower(csrfValue.ReplaceAll(body, []byte(`name="_csrf" value=""`)))
	for _, l := range leaks {
		if bytes.Contains(low, []byte(l)) {
			return l
		}
	}
	if m := goLine.Find(low); m != nil {
		return string(m)
	}
	return ""
}

// TestLeakInFindsInternals: the walk's leak check finds each internal, in
// any case, and passes a person's message.
func TestLeakInFindsInternals(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"ERROR: x (SQLSTATE 22021)", "pgx: conn closed", "goroutine 7 [running]", "PANIC: x",
		"runtime error: index out of range", "at app/store.go:12", "strconv.ParseInt: parsing", "Json: Cannot unmarshal",
		"unexpected EOF", "context deadline exceeded", "into Go struct field", "of type interface {}", "jsonrpc2.wireDecode",
		"into a *mcp.CallToolParamsRaw", "invalid memory address or nil pointer dereference"} {
		if leakIn([]byte(body)) == "" {
			t.Errorf("%q: no leak found", body)
		}
	}
	for _, body := range []string{"", "not found", `{"error":"invalid_request","error_description":"redirect_uri: not registered"}`,
		"the name must be at most 100 characters",
		`<input type="hidden" name="_csrf" value="dmn5WejCf-4fWIFdKYYX5Vsu.1797240253.3fx5wAMz-gCTWW_wwmpGXxgI">`} {
		if m := leakIn([]byte(body)); m != "" {
			t.Errorf("%q: leak %q found", body, m)
		}
	}
}

// walkedServer is a dev, web and worker process served on its own
// database, with no rate limits (a walk of every route sends many
// requests): the server, the web app whose routes it serves, its base
// URL and what it logs.
func walkedServer(t *testing.T) (*server, *fiber.App, string, *syncBuffer) {
	t.Helper()
	logged := &syncBuffer{}
	addr := freeAddr(t)
	base := "http://" + addr
	cfg, err := config.Load(env{
		"DATABASE_URL":            pgtest.NewDSN(t),
		"SECRET_KEY":              testSecret,
		"LISTEN_ADDR":             addr,
		"BASE_URL":                base,
		"WEB_RATE_LIMIT":          "0",
		"MCP_RATE_LIMIT":          "0",
		"MCP_AUTH_FAILURE_LIMIT":  "0",
		"MCP_ACCOUNT_CONCURRENCY": "64",
	}.get, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(logged, true), true, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	web, err := srv.webApp(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	listening := make(chan string, 1)
	go func() { served <- srv.serve(ctx, web, func(a string) { listening <- a }) }()
	t.Cleanup(func() { stop(); <-served })
	<-listening
	return srv, web, base, logged
}
