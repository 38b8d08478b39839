package mcpserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMessageEnvelopeRefusedInOneLine: a JSON body that is no JSON-RPC
// message (not an object, "jsonrpc" not "2.0", an id that is not a string
// or a whole number, a method, params or error of the wrong type, a tool
// name that is not a string) is refused 400 naming the member and the
// rule. go-sdk answered in its decoder's words ("json: cannot unmarshal
// \"1e999\" into Go struct field jsonrpc2.wireDecode.id of type float64",
// "invalid ID type map[string]interface {}", "empty batch" for null, "into
// a *mcp.CallToolParamsRaw"), and answered the id 1.5 as 1. Messages that
// are fine are still go-sdk's.
func TestMessageEnvelopeRefusedInOneLine(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := map[string]string{
		`"x"`:  "the body must be a JSON-RPC 2.0 message, a JSON object",
		`7`:    "the body must be a JSON-RPC 2.0 message, a JSON object",
		`null`: "the body must be a JSON-RPC 2.0 message, a JSON object",
		`{}`:   `"jsonrpc" must be "2.0"`,
		`{"jsonrpc":2,"id":1,"method":"tools/list"}`:                          `"jsonrpc" must be "2.0"`,
		`{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}`:                  `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`:                    `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`:                `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`:                   `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`:                    `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/list"}`:       `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":9007199254740990.5,"method":"tools/list"}`:     `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":9.007199254740992e15,"method":"tools/list"}`:   `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":1e-1,"method":"tools/list"}`:                   `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":1e99999999999999999999,"method":"tools/list"}`: `"id" must be a string or a whole number`,
		`{"jsonrpc":"2.0","id":1,"method":7}`:                                 `"method" must be a string`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}`:         `"params" must be an object`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}`:          `"params" must be an object`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`:  `"params.name" must be a string`,
		`{"jsonrpc":"2.0","id":1,"error":"x"}`:                                `"error" must be an object`,
		`{"jsonrpc":"2.0","id":1}`:                                            `a message needs "method"`,
		`{"_csrf":"","name":"x","email":[1],"id":1e999}`:                      `"jsonrpc" must be "2.0"`,
	}
	for body, want := range cases {
		status, got := e.post(t, body)
		var m struct {
			Error struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil || status != http.StatusBadRequest || m.Error.Code != -32600 ||
			!strings.HasPrefix(m.Error.Message, "invalid request: ") || !strings.Contains(m.Error.Message, want) {
			t.Errorf("%s: %d %s, want 400 -32600 saying %q", body, status, got, want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":-9007199254740991,"method":"tools/list","params":null}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`,
		// JSON Schema's "integer" (MCP's RequestId) is any number whose
		// value is whole: 1.0 and 1e2 are ids, as go-sdk reads them.
		`{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1e2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":-0.0,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":0e-99999999999999999999,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":9.007199254740991E+15,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":12.500e1,"method":"tools/list"}`,
	} {
		if status, got := e.post(t, body); status != http.StatusOK || !strings.Contains(got, `"negotiation_read"`) {
			t.Errorf("%s: %d %s", body, status, got)
		}
	}
}

// TestParamsOfTheWrongTypeInOneLine: a request whose params have a
// member of the wrong type was answered in go-sdk's decoder's words
// ("unmarshaling \"{…}\" into a *mcp.initializeParamsV2: json: cannot
// unmarshal \"7,…\" into Go struct field …", code 0 for initialize); now
// one -32602 line names the member and its type. A method go-sdk does not
// know was a 400 in text ("JSON RPC not handled"); now JSON-RPC's -32601.
func TestParamsOfTheWrongTypeInOneLine(t *testing.T) {
	t.Parallel()
	e := setup(t)
	cases := []struct{ version, body, want string }{
		{"", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
			`invalid params: "params.protocolVersion" must be a string, not number`},
		{"", `{"jsonrpc":"2.0","id":"q","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":[],"clientInfo":{"name":"x","version":"1"}}}`,
			`invalid params: "params.capabilities" must be an object, not array`},
		{"", `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":"x"}},"clientInfo":{"name":1,"version":"1"}}}`,
			`invalid params: "params.capabilities.roots.listChanged" must be true or false, not string`},
		{"", `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":7}}`,
			`invalid params: "params.cursor" must be a string, not number`},
		{"", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"negotiation_list","arguments":{},"_meta":7}}`,
			`invalid params: "params._meta" must be an object, not number`},
		{"", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":"x"}}`,
			`invalid params: "params._meta" must be an object, not string`},
		{"", `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":[]}}`,
			`invalid params: "params.level" must be a string, not array`},
		{"", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}`,
			`invalid params: "params.cursor" must be a nextCursor this server gave (every item comes in the first page)`},
	}
	// The same from a client of 2026-07-28 (400, its params' _meta).
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	cases = append(cases, struct{ version, body, want string }{"2026-07-28",
		`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":7,` + meta + `}}`,
		`invalid params: "params.cursor" must be a string, not number`})
	for _, c := range cases {
		status, got := e.postAs(t, c.version, c.body)
		var m struct {
			ID    json.RawMessage
			Error struct {
				Code    int
				Message string
			}
		}
		var sent struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(c.body), &sent)
		wantStatus := http.StatusOK // as go-sdk answers an error, by the protocol's version
		if c.version >= "2026-07-28" {
			wantStatus = http.StatusBadRequest
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil || status != wantStatus || m.Error.Code != -32602 ||
			m.Error.Message != c.want || string(m.ID) != string(sent.ID) {
			t.Errorf("%s: %d %s, want -32602 %q", c.body, status, got, c.want)
		}
	}
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":7,"method":"nope"}`:                     `{"error":{"code":-32601,"message":"method not found: \"nope\""},"id":7,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":"x","method":"sampling/createMessage"}`: `{"error":{"code":-32601,"message":"method not found: \"sampling/createMessage\""},"id":"x","jsonrpc":"2.0"}`,
	} {
		if status, got := e.post(t, body); status != http.StatusBadRequest || got != want {
			t.Errorf("%s: %d %s, want 400 %s", body, status, got, want)
		}
	}
	// A notification (no id, or null) gets no JSON-RPC answer: the 400
	// says it, without a message that answers no request.
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"nope"}`:                             `"nope"`,
		`{"jsonrpc":"2.0","id":null,"method":"nope"}`:                   `"nope"`,
		`{"jsonrpc":"2.0","method":"notifications/progress"}`:           `"params"`,
		`{"jsonrpc":"2.0","id":null,"method":"notifications/progress"}`: `"params"`,
	} {
		if status, got := e.post(t, body); status != http.StatusBadRequest || strings.Contains(got, `"jsonrpc"`) || !strings.Contains(got, want) {
			t.Errorf("%s: %d %s, want 400 naming %s, no JSON-RPC message", body, status, got, want)
		}
	}
	body := `{"jsonrpc":"2.0","id":12,"method":"nope","params":{` + meta + `}}`
	if status, got := e.postAs(t, "2026-07-28", body); status != http.StatusNotFound ||
		got != `{"error":{"code":-32601,"message":"method not found: \"nope\""},"id":12,"jsonrpc":"2.0"}` {
		t.Errorf("%s: %d %s, want 404 -32601", body, status, got)
	}
	// A body past MaxBody is refused for its size (413), whatever its
	// params hold.
	big := `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":7,"pad":"` + strings.Repeat("x", MaxBody) + `"}}`
	if status, got := e.post(t, big); status != http.StatusRequestEntityTooLarge || strings.Contains(got, "cursor") {
		t.Errorf("a body past MaxBody with a cursor of the wrong type: %d %.200s, want 413 saying its size", status, got)
	}
	// Params of the right types, and errors that are not about types,
	// are still go-sdk's.
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":""}}`:                    `"negotiation_read"`,
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"x://y"}}`:              `"message":"Resource not found"`,
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"x://y","cursor":"c"}}`: `"message":"Resource not found"`,
		`{"jsonrpc":"2.0","id":10,"method":"ping","params":{}}`:                                    `"result":{}`,
	} {
		if status, got := e.post(t, body); status != http.StatusOK || !strings.Contains(got, want) {
			t.Errorf("%s: %d %s, want %s", body, status, got, want)
		}
	}
}

// post sends body to alpha's endpoint with a's key.
func (e *env) post(t testing.TB, body string) (int, string) {
	t.Helper()
	return e.postAs(t, "", body)
}

// postAs sends body as a client of protocol version sends it: from
// 2026-07-28 with the Mcp-Method and Mcp-Name headers.
func (e *env) postAs(t testing.TB, version, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", e.url+"/mcp/alpha", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.keys["a"])
	if version != "" {
		var m struct {
			Method string
			Params struct{ Name string }
		}
		_ = json.Unmarshal([]byte(body), &m)
		req.Header.Set("Mcp-Protocol-Version", version)
		req.Header.Set("Mcp-Method", m.Method)
		if m.Params.Name != "" {
			req.Header.Set("Mcp-Name", m.Params.Name)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// BenchmarkAnswersError: what every answer of go-sdk's costs to be told
// from an error (a move's answer of about 2 KB).
func BenchmarkAnswersError(b *testing.B) {
	answer := []byte(`{"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2000) + `"}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if answersError(answer) {
			b.Fatal("an error")
		}
	}
}

func TestAnswersError(t *testing.T) {
	for answer, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                            false,
		`{"jsonrpc":"2.0","id":"\"error\":{","result":{"error":{}}}`:                      false,
		`{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"error":"x"}}}`:           false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`:                  true,
		`{"jsonrpc":"2.0","id":"\"result\":","error":{"code":1,"message":"\"result\":"}}`: true,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","data":{"result":1}}}`:   true,
	} {
		if got := answersError([]byte(answer)); got != want {
			t.Errorf("%s: %v, want %v", answer, got, want)
		}
	}
}

// TestSDKWordsReadMembersAsGoSDKDoes: go-sdk's decoder matches a
// message's members by their exact names ("ID", "Method", "URI" are
// other members, which it ignores), so the words that replace its error
// answer must be read from the same members: the id it answered, the
// method it did not know, the params it read. Read in any case, an
// answer lost its id ("ID":"other"), named a method that was served, or
// replaced "Resource not found" with a type fault of a member go-sdk
// never read; and {"jsonrpc","id","Method"} was still accepted with 202.
func TestSDKWordsReadMembersAsGoSDKDoes(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":9,"ID":"other","method":"nope"}`:          `{"error":{"code":-32601,"message":"method not found: \"nope\""},"id":9,"jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","id":9,"method":"nope","Method":"tools/list"}`: `{"error":{"code":-32601,"message":"method not found: \"nope\""},"id":9,"jsonrpc":"2.0"}`,
	} {
		if status, got := e.post(t, body); status != http.StatusBadRequest || got != want {
			t.Errorf("%s: %d %s, want 400 %s", body, status, got, want)
		}
	}
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"x://y","URI":1}}`: `"message":"Resource not found"`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"Cursor":7}}`:                `"negotiation_read"`,
	} {
		if status, got := e.post(t, body); status != http.StatusOK || !strings.Contains(got, want) || !strings.Contains(got, `"id":9`) {
			t.Errorf("%s: %d %s, want 200 with %s", body, status, got, want)
		}
	}
	body := `{"jsonrpc":"2.0","id":9,"Method":"tools/list"}`
	if status, got := e.post(t, body); status != http.StatusBadRequest || !strings.Contains(got, `a message needs \"method\"`) {
		t.Errorf("%s: %d %s, want 400 -32600", body, status, got)
	}
}

// TestInitializeWithoutParamsInJSONRPCWords: a request without the params
// its method needs was answered by go-sdk with a 400 in text ("invalid
// request: missing required \"params\""), and initialize's params null
// with code 0, no JSON-RPC code (as its params of the wrong type were);
// now -32602 naming them, the status kept.
func TestInitializeWithoutParamsInJSONRPCWords(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const want = `"error":{"code":-32602,"message":"invalid params: \"params\" is required, an object with protocolVersion, capabilities and clientInfo"}`
	wantStatus := map[string]int{ // as go-sdk answered
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`:                 http.StatusBadRequest,
		`{"jsonrpc":"2.0","id":"i","method":"initialize","params":null}`: http.StatusOK,
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":"i","method":"initialize","params":null}`,
	} {
		var sent struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(body), &sent)
		if status, got := e.post(t, body); status != wantStatus[body] || !strings.Contains(got, want) || !strings.Contains(got, `"id":`+string(sent.ID)) {
			t.Errorf("%s: %d %s, want %d %s", body, status, got, wantStatus[body], want)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read"}`,
	} {
		if status, got := e.post(t, body); status != http.StatusBadRequest ||
			!strings.Contains(got, `"error":{"code":-32602,"message":"invalid params: \"params\" is required, an object"}`) {
			t.Errorf("%s: %d %s, want 400 -32602", body, status, got)
		}
	}
}

// TestMessageNestedTooDeepInOneLine: a message nested past go-sdk's 1000
// levels outside a tool's arguments (those are the tool's to name) was
// answered with go-sdk's decoder's words ("malformed payload: unmarshaling
// jsonrpc message: json: exceeded maximum nesting depth of 1000"), and
// past 10,000 levels called "not valid JSON"; now -32600 saying the rule,
// with the request's id where go-sdk read one.
func TestMessageNestedTooDeepInOneLine(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const want = `"error":{"code":-32600,"message":"invalid request: the message nests arrays and objects more than 1000 levels deep"}`
	for _, n := range []int{1001, 20000} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		for _, body := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"nope","params":{"x":` + deep + `}}`,
			`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"a":` + deep + `}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":` + deep + `}}`,
		} {
			if status, got := e.post(t, body); status != http.StatusBadRequest || !strings.Contains(got, want) {
				t.Errorf("%d levels in %.60s…: %d %.300s, want 400 %s", n, body, status, got, want)
			}
		}
	}
}

// TestUnsupportedProtocolVersionHeaderInOneLine: a request whose
// Mcp-Protocol-Version header is no version this server speaks is
// refused in one JSON-RPC line naming the header, the value and the
// versions, with go-sdk's -32022 and its data (which go-sdk's client
// negotiates on), whatever the value. go-sdk answered a value below
// 2026-07-28 with a 400 in text naming neither header nor value, and one
// above it without the request's _meta with -32602 "missing or invalid
// _meta field \"io.modelcontextprotocol/protocolVersion\"", blaming a
// member the client's version may not have.
func TestUnsupportedProtocolVersionHeaderInOneLine(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const list = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`
	meta := func(v string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"negotiation_list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v +
			`","io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	}
	const supported = `"data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":`
	for _, c := range []struct{ version, body, id string }{
		{"2024-10-07", list, "7"}, // the TypeScript SDK 1.32 knows it; go-sdk does not
		{"2025-06-19", list, "7"},
		{"2026-07-29", list, "7"},
		{"latest", list, "7"},
		{"2027-01-01", meta("2027-01-01"), "7"}, // a newer client: go-sdk's data kept
		{"latest", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "null"},
	} {
		status, got := e.postAs(t, c.version, c.body)
		want := `{"error":{"code":-32022,` + supported + `"` + c.version + `"},"message":"unsupported protocol version \"` + c.version +
			`\" in the Mcp-Protocol-Version header: this server speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05 (send the version initialize or server/discover agreed)"},"id":` + c.id + `,"jsonrpc":"2.0"}`
		if status != http.StatusBadRequest || got != want {
			t.Errorf("Mcp-Protocol-Version %s, %s:\n%d %s\nwant 400 %s", c.version, c.body, status, got, want)
		}
	}
	// A go-sdk client of a newer protocol still negotiates on the answer.
	c := mcp.NewClient(&mcp.Implementation{Name: "newer", Version: "1"}, nil)
	s, err := c.Connect(e.ctx, &mcp.StreamableClientTransport{Endpoint: e.url + "/mcp/alpha",
		HTTPClient: &http.Client{Transport: recorder{key: e.keys["a"]}, Timeout: 30 * time.Second}, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2027-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("a client of 2027-01-01 agreed %s, want 2026-07-28", v)
	}
	if _, err := s.CallTool(e.ctx, &mcp.CallToolParams{Name: "negotiation_list", Arguments: map[string]any{}}); err != nil {
		t.Error(err)
	}
}

// TestEnvelopeRefusalCarriesTheID: a message refused by the envelope
// check whose id could be read is answered with that id (JSON-RPC 2.0
// §5: null only when it could not), so a client ties the refusal to its
// request; it was answered with id null ({"id":7,"method":null} and
// {"jsonrpc":"1.0","id":"a",…} alike). An id that is no id stays null.
func TestEnvelopeRefusalCarriesTheID(t *testing.T) {
	t.Parallel()
	e := setup(t)
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":100000000000000,"method":null}`:                   `100000000000000`,
		`{"jsonrpc":"1.0","id":"a","method":"tools/list"}`:                       `"a"`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":[]}}`:    `7`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/list","params":[1]}`:          `"x"`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`:                       `null`,
		`{"jsonrpc":"2.0","id":1,"id":{"a":1},"method":"tools/list"}`:            `null`,
		`{"jsonrpc":"2.0","id":{"a":1},"id":2,"method":"tools/list","params":7}`: `2`,
	} {
		status, got := e.post(t, body)
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct{ Code int }
		}
		if err := json.Unmarshal([]byte(got), &m); err != nil || status != http.StatusBadRequest || m.Error.Code != -32600 || string(m.ID) != want {
			t.Errorf("%s: %d %s, want 400 -32600 with id %s", body, status, got, want)
		}
	}
}
