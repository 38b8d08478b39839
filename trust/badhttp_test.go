package trust

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestBadInputHTTP aims at the MCP endpoint's HTTP layer: keys, headers,
// paths, methods, bodies that are not JSON-RPC, huge and deep bodies. Each
// must be answered in the 4xx range with one clear line, and change nothing.
func TestBadInputHTTP(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 3})
	a, b, c := s.tenants[0], s.tenants[1], s.tenants[2]
	if err := s.accounts.RevokeAgentKey(s.ctx, c.slug, c.keyID); err != nil {
		t.Fatal(err)
	}
	read := toolCall("negotiation_read", []byte(`{"room_token":"x"}`))
	deep := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_read","arguments":{"room_token":` +
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}}`)
	huge := toolCall("negotiation_read", []byte(`{"room_token":"`+strings.Repeat("x", 2<<20)+`"}`))
	var batch bytes.Buffer
	batch.WriteByte('[')
	for i := range 100 {
		if i > 0 {
			batch.WriteByte(',')
		}
		batch.Write(read)
	}
	batch.WriteByte(']')

	type hcase struct {
		name   string
		method string
		path   string
		key    string
		hdr    map[string]string
		body   []byte
		want   string // a piece of the line the caller reads
		fine   bool   // a normal answer is right (the request is odd, not bad)
	}
	mcp := "/mcp/" + b.slug
	cases := []hcase{
		{"no key", "POST", mcp, "", nil, read, "Authorization: Bearer <agent key> is required", false},
		{"basic auth", "POST", mcp, "", map[string]string{"Authorization": "Basic YTpi"}, read, "Authorization: Bearer", false},
		{"empty bearer", "POST", mcp, "", map[string]string{"Authorization": "Bearer "}, read, "Authorization: Bearer", false},
		{"lowercase scheme (any case, RFC 7235)", "POST", mcp, "", map[string]string{"Authorization": "bearer " + b.key}, read, "", true},
		{"unknown key", "POST", mcp, "tsk_" + strings.Repeat("A", 43), nil, read, "not valid", false},
		{"short key", "POST", mcp, "tsk_abc", nil, read, "not valid", false},
		{"long key", "POST", mcp, "tsk_" + strings.Repeat("A", 3000), nil, read, "not valid", false},
		{"key and more", "POST", mcp, b.key + " x", nil, read, "not valid", false},
		{"sql in key", "POST", mcp, "' OR 1=1 --", nil, read, "not valid", false},
		{"revoked key", "POST", "/mcp/" + c.slug, c.key, nil, read, "not valid", false},
		{"other account's key", "POST", mcp, a.key, nil, read, "no such account", false},
		{"unknown account", "POST", "/mcp/nobody", b.key, nil, read, "no such account", false},
		{"uppercase account", "POST", "/mcp/" + strings.ToUpper(b.slug), b.key, nil, read, "no such account", false},
		{"account with NUL", "POST", "/mcp/" + b.slug + "%00", b.key, nil, read, "no such account", false},
		{"dotdot account", "POST", "/mcp/..%2f" + b.slug, b.key, nil, read, "no such account", false},
		{"long account", "POST", "/mcp/" + strings.Repeat("a", 500), b.key, nil, read, "no such account", false},
		{"no account", "POST", "/mcp/", b.key, nil, read, "", false},
		{"not JSON", "POST", mcp, b.key, nil, []byte("not json"), "parse error: the body is not valid JSON", false},
		{"empty body", "POST", mcp, b.key, nil, nil, "parse error", false},
		{"invalid UTF-8", "POST", mcp, b.key, nil, toolCall("negotiation_read", []byte("{\"room_token\":\"\xff\xfe\"}")), "not valid UTF-8", false},
		{"truncated", "POST", mcp, b.key, nil, read[:len(read)-3], "parse error", false},
		{"trailing data", "POST", mcp, b.key, nil, append(append([]byte{}, read...), read...), "parse error", false},
		{"deep nesting", "POST", mcp, b.key, nil, deep, "", false},
		{"2 MiB body", "POST", mcp, b.key, nil, huge, "", false},
		{"batch of 100", "POST", mcp, b.key, nil, batch.Bytes(), "batches are not supported", false},
		{"JSON-RPC 1.0", "POST", mcp, b.key, nil, []byte(`{"jsonrpc":"1.0","id":1,"method":"tools/list"}`), "", false},
		{"a response, not a request", "POST", mcp, b.key, nil, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), "", true},
		{"unknown method", "POST", mcp, b.key, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"rooms/drop"}`), "", false},
		{"unknown tool", "POST", mcp, b.key, nil, toolCall("negotiation_delete", []byte(`{}`)), "unknown tool", false},
		{"tool name injection", "POST", mcp, b.key, nil, toolCall("negotiation_read'; DROP TABLE rooms; --", []byte(`{}`)), "unknown tool", false},
		{"no params", "POST", mcp, b.key, nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), "", false},
		{"id object", "POST", mcp, b.key, nil, []byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`), "", false},
		{"text/plain", "POST", mcp, b.key, map[string]string{"Content-Type": "text/plain"}, read, "", false},
		{"accept html", "POST", mcp, b.key, map[string]string{"Accept": "text/html"}, read, "", false},
		{"bad protocol version", "POST", mcp, b.key, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, read, "", false},
		{"bogus session (stateless: ignored)", "POST", mcp, b.key, map[string]string{"Mcp-Session-Id": "../../etc/passwd"}, read, "room_token: no room of yours has this token", true},
		{"huge header", "POST", mcp, b.key, map[string]string{"X-Pad": strings.Repeat("p", 16<<10)}, read, "", false},
		{"GET", "GET", mcp, b.key, nil, nil, "", false},
		{"DELETE", "DELETE", mcp, b.key, nil, nil, "", false},
		{"PUT", "PUT", mcp, b.key, nil, read, "", false},
	}
	before := s.state()
	bad5xx, unclear := 0, 0
	for _, hc := range cases {
		req, err := http.NewRequestWithContext(s.ctx, hc.method, s.base+hc.path, bytes.NewReader(hc.body))
		if err != nil {
			t.Fatal(err)
		}
		if hc.body == nil {
			req.Body = http.NoBody
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if hc.key != "" {
			req.Header.Set("Authorization", "Bearer "+hc.key)
		}
		for k, v := range hc.hdr {
			req.Header.Set(k, v)
		}
		ans := s.send(req)
		switch {
		case ans.status >= 500:
			bad5xx++
			t.Errorf("%s: HTTP %d %s", hc.name, ans.status, tail(ans.body, 300))
		case hc.fine:
		case ans.ok || ans.status < 400 && !strings.Contains(ans.body, `"error"`):
			t.Errorf("%s: accepted (HTTP %d %s)", hc.name, ans.status, tail(ans.body, 300))
		case hc.want != "" && !strings.Contains(ans.msg, hc.want):
			unclear++
			t.Errorf("%s: HTTP %d, told %q, want it to say %q", hc.name, ans.status, tail(ans.msg, 300), hc.want)
		case strings.ContainsAny(ans.msg, "\n") || ans.msg == "":
			unclear++
			t.Errorf("%s: HTTP %d, not one line: %q", hc.name, ans.status, tail(ans.msg, 300))
		}
		if ans.status == http.StatusUnauthorized && ans.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", hc.name)
		}
	}
	if s.state() != before {
		t.Errorf("the malformed requests changed what is stored")
	}
	t.Logf("bad HTTP to /mcp: %d requests; 5xx: %d; unclear: %d", len(cases), bad5xx, unclear)
}
