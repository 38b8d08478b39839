package mcpserver

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestEveryAnswerReadableFromAnyOrigin: a page of another origin reads
// each answer of the door, its refusals too (a key of another account, a
// body too large, go-sdk's own answers), never with credentials; and the
// preflight is answered without a bearer (review25a: it was 401, and no
// answer named an origin).
func TestEveryAnswerReadableFromAnyOrigin(t *testing.T) {
	e := setup(t)
	do := func(method, path, key, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, e.url+path, strings.NewReader(body))
		req.Header.Set("Origin", "https://client.example")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"` + strings.Repeat("x", MaxBody) + `"}}`
	for _, c := range []struct {
		what, method, path, key, body string
		status                        int
	}{
		{"a call", "POST", "/mcp/alpha", e.keys["a"], list, 200},
		{"no bearer", "POST", "/mcp/alpha", "", list, 401},
		{"a bad bearer", "POST", "/mcp/alpha", "nope", list, 401},
		{"another account's key", "POST", "/mcp/alpha", e.keys["b"], list, 404},
		{"a body too large", "POST", "/mcp/alpha", e.keys["a"], big, 413},
		{"a GET for a stream", "GET", "/mcp/alpha", e.keys["a"], "", 405},
	} {
		resp := do(c.method, c.path, c.key, c.body)
		h := resp.Header
		if resp.StatusCode != c.status || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" ||
			!strings.Contains(h.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("%s: %d %v, want %d readable from any origin", c.what, resp.StatusCode, h, c.status)
		}
	}
	resp := do("OPTIONS", "/mcp/alpha", "", "")
	if h := resp.Header; resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("WWW-Authenticate") != "" ||
		!strings.Contains(h.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "DELETE") {
		t.Errorf("the preflight: %d %v", resp.StatusCode, h)
	}
}
