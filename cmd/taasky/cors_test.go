package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/bench"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestBrowserClientCallsTheDoor is a web page of another origin that
// calls the agents' door with fetch, as the MCP Inspector's direct mode
// or a web assistant does: the preflight met the bearer check (401), and
// no answer said Access-Control-Allow-Origin, so the page could read
// nothing, not even the WWW-Authenticate of its bad key (review25a).
func TestBrowserClientCallsTheDoor(t *testing.T) {
	s := newOAuthStack(t)
	if len(s.devAgents) == 0 || !strings.HasSuffix(s.devAgents[0][1], "/mcp/demo-a") {
		t.Fatalf("dev agents: %q", s.devAgents)
	}
	mcpURL, key := s.devAgents[0][1], s.devAgents[0][2]
	openClientPage(t, s)
	args, _ := json.Marshal([]string{mcpURL, s.base, key})
	script := `(async ([url, base, key]) => {
		const out = [];
		const initialize = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'page', version: '1'}}};
		const call = (to, bearer, body) => fetch(to, {method: 'POST', headers: {Authorization: 'Bearer ' + bearer, 'Content-Type': 'application/json',
			Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25'}, body: JSON.stringify(body)});
		try {
			let r = await call(url, key, initialize);
			const init = await r.json();
			out.push('initialize ' + r.status + ' ' + (init.result ? init.result.protocolVersion : JSON.stringify(init)));
			r = await call(url, key, {jsonrpc: '2.0', id: 2, method: 'tools/list', params: {}});
			const list = await r.json();
			out.push('tools/list ' + r.status + ' ' + (list.result && list.result.tools.length > 0));
			r = await call(url, 'not-a-key', initialize);
			out.push('bad key ' + r.status + ' ' + r.headers.get('WWW-Authenticate'));
			r = await call(base + '/mcp', 'not-a-key', initialize);
			out.push('bad key at /mcp ' + r.status + ' ' + r.headers.get('WWW-Authenticate'));
			r = await fetch(base + '/.well-known/oauth-protected-resource/mcp/demo-a', {headers: {'MCP-Protocol-Version': '2025-11-25'}});
			out.push('metadata ' + r.status + ' ' + (await r.json()).resource);
		} catch (e) {
			out.push('failed: ' + e);
		}
		return out.join('\n');
	})(` + string(args) + `)`
	c, cancel := context.WithTimeout(s.tab, 30*time.Second)
	defer cancel()
	got, err := chromedp.Run(c, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(got, "\n")
	want := []func(string) bool{
		func(l string) bool { return l == "initialize 200 2025-11-25" },
		func(l string) bool { return l == "tools/list 200 true" },
		func(l string) bool {
			return strings.HasPrefix(l, "bad key 401 Bearer ") && strings.Contains(l, `error="invalid_token"`) && strings.Contains(l, "resource_metadata=")
		},
		func(l string) bool {
			return strings.HasPrefix(l, "bad key at /mcp 401 Bearer ") && strings.Contains(l, "resource_metadata=")
		},
		func(l string) bool { return l == "metadata 200 "+mcpURL },
	}
	if len(lines) != len(want) {
		t.Fatalf("the page read:\n%s", got)
	}
	for i, ok := range want {
		if !ok(lines[i]) {
			t.Errorf("the page read %q (all:\n%s)", lines[i], got)
		}
	}
}

// TestDoorPreflight is the preflight of the door and of the metadata
// documents as a browser sends it, and what the dashboard answers an
// origin: nothing (its session is a cookie).
func TestDoorPreflight(t *testing.T) {
	dsn := pgtest.NewDSN(t)
	addr, err := bench.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr
	p := start(t, env{"DATABASE_URL": dsn, "LISTEN_ADDR": addr, "BASE_URL": base,
		"XDG_CONFIG_HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}, "dev")
	p.waitStdout(t, "Stop with Ctrl-C.")
	do := func(method, path string, header ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", "https://client.example")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/mcp/demo-a", "/mcp"} {
		resp := do(http.MethodOptions, path, "Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version")
		h := resp.Header
		if resp.StatusCode != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Max-Age") == "" ||
			h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("OPTIONS %s: %d %v", path, resp.StatusCode, h)
		}
		for _, m := range []string{"POST", "GET", "DELETE"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Methods"), m) {
				t.Errorf("OPTIONS %s: methods %q lack %s", path, h.Get("Access-Control-Allow-Methods"), m)
			}
		}
		for _, name := range []string{"Authorization", "Content-Type", "Accept", "Mcp-Session-Id", "MCP-Protocol-Version", "Last-Event-ID"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Headers"), name) {
				t.Errorf("OPTIONS %s: headers %q lack %s", path, h.Get("Access-Control-Allow-Headers"), name)
			}
		}
		resp = do(http.MethodPost, path, "Authorization", "Bearer not-a-key", "Content-Type", "application/json")
		h = resp.Header
		if resp.StatusCode != http.StatusUnauthorized || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("POST %s with a bad key: %d %v", path, resp.StatusCode, h)
		}
		for _, name := range []string{"Mcp-Session-Id", "WWW-Authenticate", "Retry-After", "X-Request-Id"} {
			if !strings.Contains(h.Get("Access-Control-Expose-Headers"), name) {
				t.Errorf("POST %s: exposed %q lack %s", path, h.Get("Access-Control-Expose-Headers"), name)
			}
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp/demo-a", "/.well-known/oauth-authorization-server"} {
		resp := do(http.MethodOptions, path, "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "mcp-protocol-version")
		if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
			t.Errorf("OPTIONS %s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	for _, method := range []string{http.MethodGet, http.MethodOptions} {
		for _, path := range []string{"/settings", "/"} {
			if resp := do(method, path, "Access-Control-Request-Method", "POST"); resp.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s %s answers an origin: %v", method, path, resp.Header)
			}
		}
	}
}

// TestBrowserClientReadsBodyTooLarge is a web page of another origin
// sending the door and the token endpoint a body past their limits. A
// body past 4 MiB was refused by fasthttp before any route, without the
// door's CORS headers: the page read "TypeError: Failed to fetch" and
// nothing of the 413 (limits26). Now it reads the door's own answer, the
// one a body of 1 MiB and a byte gets from go-sdk, and the token
// endpoint's OAuth error naming the limit; the registration endpoint's
// names its own 16 KiB, as a body of 17 KiB is told (it named 4 MiB).
func TestBrowserClientReadsBodyTooLarge(t *testing.T) {
	s := newOAuthStack(t)
	mcpURL, key := s.devAgents[0][1], s.devAgents[0][2]
	openClientPage(t, s)
	args, _ := json.Marshal([]string{mcpURL, s.base, key})
	script := `(async ([url, base, key]) => {
		const out = [];
		// A JSON-RPC message of size bytes.
		const call = async (what, to, headers, size) => {
			const head = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"', tail = '"}}';
			try {
				const r = await fetch(to, {method: 'POST', headers, body: head + 'x'.repeat(size - head.length - tail.length) + tail});
				out.push(what + ' ' + r.status + ' ' + r.headers.get('Content-Type') + ' ' + JSON.stringify(await r.text()));
			} catch (e) {
				out.push(what + ' failed: ' + e);
			}
		};
		const door = {Authorization: 'Bearer ' + key, 'Content-Type': 'application/json',
			Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25'};
		await call('door 1 MiB+1', url, door, (1 << 20) + 1);
		await call('door 5 MiB', url, door, 5 << 20);
		await call('token 5 MiB', base + '/oauth/token', {'Content-Type': 'application/x-www-form-urlencoded'}, 5 << 20);
		await call('register 5 MiB', base + '/oauth/register', {'Content-Type': 'application/json'}, 5 << 20);
		return out.join('\n');
	})(` + string(args) + `)`
	c, cancel := context.WithTimeout(s.tab, 60*time.Second)
	defer cancel()
	got, err := chromedp.Run(c, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`door 1 MiB+1 413 text/plain; charset=utf-8 "request body exceeds 1048576 bytes\n"`,
		`door 5 MiB 413 text/plain; charset=utf-8 "request body exceeds 1048576 bytes\n"`,
		`token 5 MiB 413 application/json "{\"error\":\"invalid_request\",\"error_description\":\"the request body exceeds 4194304 bytes\"}"`,
		`register 5 MiB 413 application/json "{\"error\":\"invalid_client_metadata\",\"error_description\":\"the registration must be a JSON object of at most 16 KiB\"}"`,
	}
	if got != strings.Join(want, "\n") {
		t.Errorf("the page read:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestBrowserClientReadsHeadTooLarge is a web page of another origin
// calling the door with a bearer past the 4 KiB read buffer (a large
// JWT), and the door and the token endpoint with a URL past it. fasthttp
// refuses them before any route: the page read "TypeError: Failed to
// fetch" and nothing of the 431, and a URL was told 431 too. Now it
// reads the refusals, a URL's as 414 URI Too Long. (A request that needs
// a preflight and has such a URL still fails to fetch: the preflight
// carries the URL, and a refused preflight is a network error.)
func TestBrowserClientReadsHeadTooLarge(t *testing.T) {
	s := newOAuthStack(t)
	mcpURL := s.devAgents[0][1]
	openClientPage(t, s)
	args, _ := json.Marshal([]string{mcpURL, s.base})
	script := `(async ([url, base]) => {
		const out = [];
		const call = async (what, to, bearer) => {
			try {
				const r = await fetch(to, {method: 'POST', headers: {Authorization: 'Bearer ' + bearer, 'Content-Type': 'application/json',
					Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25'}, body: '{}'});
				out.push(what + ' ' + r.status + ' ' + JSON.stringify(await r.text()));
			} catch (e) {
				out.push(what + ' failed: ' + e);
			}
		};
		await call('bearer 5 KiB', url, 'x'.repeat(5 << 10));
		// Requests without a preflight (a preflight carries the URL too,
		// and a refused one is a network error whatever it says).
		const simple = async (what, to, init) => {
			try {
				const r = await fetch(to, init);
				out.push(what + ' ' + r.status + ' ' + JSON.stringify(await r.text()));
			} catch (e) {
				out.push(what + ' failed: ' + e);
			}
		};
		await simple('URL 5 KiB', url + '?x=' + 'x'.repeat(5 << 10), {});
		await simple('token URL 5 KiB', base + '/oauth/token?' + 'x'.repeat(5 << 10),
			{method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'grant_type=x'});
		return out.join('\n');
	})(` + string(args) + `)`
	c, cancel := context.WithTimeout(s.tab, 60*time.Second)
	defer cancel()
	got, err := chromedp.Run(c, chromedp.Evaluate[string](script, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`bearer 5 KiB 431 "the request line and headers exceed 4096 bytes (a URL or a header too long, or too many headers)"`,
		`URL 5 KiB 414 "the request line exceeds 4096 bytes (a URL too long)"`,
		`token URL 5 KiB 414 "the request line exceeds 4096 bytes (a URL too long)"`,
	}
	if got != strings.Join(want, "\n") {
		t.Errorf("the page read:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// openClientPage opens in s's browser a page of another origin than
// Taasky's, as a web-based MCP client's, for its scripts to call from.
func openClientPage(t *testing.T, s *oauthStack) {
	t.Helper()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><title>a client</title><p id=ready>a web client</p>`)
	}))
	t.Cleanup(page.Close)
	s.do("open the client's page", chromedp.Navigate(page.URL), chromedp.WaitVisible(chromedp.CSS("#ready")))
}
