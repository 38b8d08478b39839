package mcpserver

import (
	"bytes"
	"encoding/json"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// envelopeSeeds are bodies the envelope tests send, refused and served.
var envelopeSeeds = []string{
	`"x"`, `7`, `null`, `{}`, `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`{"jsonrpc":2,"id":1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":9007199254740990.5,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`,
	`{"jsonrpc":"2.0","id":1,"error":"x"}`,
	`{"jsonrpc":"2.0","id":1}`,
	`{"_csrf":"","name":"x","email":[1],"id":1e999}`,
	`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":-9007199254740991,"method":"tools/list","params":null}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":0e-99999999999999999999,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":12.500e1,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":9,"Method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":"q","method":"initialize","params":null}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":7}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"x"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":"x"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":[]}}`,
	`{"jsonrpc":"2.0","id":12,"method":"nope","params":{}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"negotiation_list","arguments":{"limit":1e999}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":7}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	// The last params is the one go-sdk reads, and its name the tool's.
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7},"params":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7},"params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_list"},"params":{"name":7}}`,
	`{"jsonrpc":"2.0","id":1,"method":"tools/list"} {}`,
	// A name that is not a string is the tool call's fault only.
	`{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":7}}`,
}

// referenceRequest reads b with go-sdk's own decoder and says whether it
// is a JSON-RPC request the contract serves: valid UTF-8 JSON, a request
// go-sdk decodes, an id that is absent, null, a string or a whole number
// within ±(2^53-1) (read exactly, apart from the envelope check's digit
// arithmetic), a method that is a string, params absent, null or an object, and a tool call's name a
// string when given.
func referenceRequest(b []byte) bool {
	if !utf8.Valid(b) || !json.Valid(b) {
		return false
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return false
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return false
	}
	var raw struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if sdkUnmarshal(b, &raw) != nil || !referenceID(raw.ID) || raw.Method[0] != '"' {
		return false // go-sdk reads "method":null as the method ""
	}
	if p := bytes.TrimSpace(raw.Params); len(p) > 0 && p[0] != '{' && string(p) != "null" {
		return false
	}
	if req.Method == "tools/call" && len(raw.Params) > 0 && raw.Params[0] == '{' {
		var call struct {
			Name json.RawMessage `json:"name"`
		}
		if sdkUnmarshal(raw.Params, &call) != nil {
			return false
		}
		if len(call.Name) > 0 && call.Name[0] != '"' {
			return false
		}
	}
	return true
}

// referenceID: a JSON-RPC id the contract keeps, its number read as an
// exact rational.
func referenceID(id json.RawMessage) bool {
	if len(id) == 0 || string(id) == "null" || id[0] == '"' {
		return true
	}
	if id[0] != '-' && (id[0] < '0' || id[0] > '9') {
		return false
	}
	s := strings.ToLower(string(id))
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Trim(mant, "-0.") == "" {
		return true // zero
	}
	if exp != "" {
		e, err := strconv.Atoi(exp)
		if err != nil || e > 10000 {
			return false // past 2^53
		}
		if e < -10000 && len(mant) < 5000 {
			return false // a fraction
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return false
	}
	return r.Num().CmpAbs(big.NewInt(1<<53-1)) <= 0
}

// FuzzEnvelope: the envelope check (badBody) refuses no request go-sdk's
// decoder reads and the contract serves, and serves none it refuses;
// what it refuses it says in one line of JSON-RPC's words, with its code.
//
//	go test ./mcpserver -run XXX -fuzz FuzzEnvelope -fuzztime 3m -parallel 1
func FuzzEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		code, msg, id := badBody(b)
		want := referenceRequest(b)
		if sent := rawID(b); msg != "" && len(sent) > 0 && referenceID(sent) && utf8.Valid(b) && json.Valid(b) &&
			!strings.HasPrefix(msg, "invalid request: \"id\"") && (len(id) == 0 || !sameID(sent, id)) {
			t.Fatalf("%q: refused with id %s, not the id sent", b, id)
		}
		switch {
		case want && msg != "":
			t.Fatalf("%q: a request go-sdk reads, refused: %d %s", b, code, msg)
		case msg == "":
			if code != 0 {
				t.Fatalf("%q: served with code %d", b, code)
			}
			if !want && bytes.Contains(b, []byte(`"method"`)) {
				// A message with a method is go-sdk's request: served, it must be one.
				if m, err := jsonrpc.DecodeMessage(b); err != nil {
					t.Fatalf("%q: served, go-sdk refuses it in its words: %v", b, err)
				} else if _, ok := m.(*jsonrpc.Request); ok && referenceID(rawID(b)) {
					t.Fatalf("%q: served, but not a request the contract serves", b)
				}
			}
		default:
			if code != -32700 && code != -32600 {
				t.Fatalf("%q: code %d", b, code)
			}
			if strings.Contains(msg, "\n") || !(strings.HasPrefix(msg, "parse error: ") || strings.HasPrefix(msg, "invalid request: ") ||
				strings.HasPrefix(msg, "batches are not supported")) {
				t.Fatalf("%q: refused in other words: %s", b, msg)
			}
		}
	})
}

func rawID(b []byte) json.RawMessage {
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	_ = sdkUnmarshal(b, &raw)
	return raw.ID
}

// FuzzAnswersError: whatever the id, result or error message go-sdk
// encodes, answersError tells an error from a result by its first bytes.
func FuzzAnswersError(f *testing.F) {
	f.Add("1", []byte(`{}`), "", false)
	f.Add(`"\"error\":{"`, []byte(`{"error":{}}`), "", false)
	f.Add("1", []byte(`{"structuredContent":{"error":"x"}}`), "", false)
	f.Add(`"\"result\":"`, []byte(`null`), `"result":`, true)
	f.Add("7", []byte(`{"content":[{"type":"text","text":"\"error\":"}]}`), `x","result":{`, true)
	f.Fuzz(func(t *testing.T, idText string, result []byte, message string, isError bool) {
		var v any
		if json.Unmarshal([]byte(idText), &v) != nil {
			v = idText
		}
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			return
		}
		if !json.Valid(result) {
			result, _ = json.Marshal(string(result))
		}
		resp := &jsonrpc.Response{ID: id, Result: result}
		if isError {
			resp = &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: -32603, Message: message, Data: result}}
		}
		answer, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			return
		}
		if got := answersError(answer); got != isError {
			t.Fatalf("%s: answersError %v, want %v", answer, got, isError)
		}
	})
}

// paramsMember is the member a -32602 answer names.
var paramsMember = regexp.MustCompile(`^invalid params: "params\.([^".]+)`)

// FuzzDoor posts arbitrary bodies to the MCP endpoint, as a client of
// each protocol version. Whatever comes in: no 5xx, and every answer is
// one JSON-RPC message (or none, 202; a notification refused may be a
// 400 in text, as MCP allows); an error answer to a request with
// an id carries that id, and an invalid-params answer names a member the
// params have (as go-sdk reads them, by exact name).
//
//	go test ./mcpserver -run XXX -fuzz FuzzDoor -fuzztime 5m -parallel 1
func FuzzDoor(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add(uint8(0), []byte(s))
	}
	f.Add(uint8(2), []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":7}}`))
	e := setup(f)
	versions := append([]string{""}, protocolVersions...)
	versions = append(versions, "1999-01-01")
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		version := versions[int(which)%len(versions)]
		status, got := e.postAs(t, version, string(body))
		if status >= 500 {
			t.Fatalf("%s %q: HTTP %d %s", version, body, status, got)
		}
		if status == http.StatusAccepted && got == "" {
			return
		}
		if id := rawID(body); status == http.StatusBadRequest && (len(id) == 0 || string(id) == "null") && !strings.HasPrefix(got, "{") {
			return // a notification refused: MCP asks for a 4xx, its body may be any
		}
		if status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusRequestEntityTooLarge {
			return
		}
		var ans struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(got), &ans); err != nil || ans.JSONRPC != "2.0" || (ans.Error == nil) == (ans.Result == nil) {
			t.Fatalf("%s %q: HTTP %d, not one JSON-RPC answer: %s", version, body, status, got)
		}
		if ans.Error == nil || !referenceRequest(body) {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params json.RawMessage `json:"params"`
		}
		_ = sdkUnmarshal(body, &req)
		if len(req.ID) > 0 && string(req.ID) != "null" && !sameID(req.ID, ans.ID) {
			t.Fatalf("%s %q: answered with id %s: %s", version, body, ans.ID, got)
		}
		if m := paramsMember.FindStringSubmatch(ans.Error.Message); m != nil && ans.Error.Code == -32602 {
			var params map[string]json.RawMessage
			if sdkUnmarshal(req.Params, &params) != nil || params[m[1]] == nil {
				t.Fatalf("%s %q: names %q, which the params do not have: %s", version, body, m[1], got)
			}
		}
	})
}

// sameID: the answer's id is the request's, a number by its value.
func sameID(sent, answered json.RawMessage) bool {
	if sent[0] == '"' || answered[0] == '"' {
		var a, b string
		return json.Unmarshal(sent, &a) == nil && json.Unmarshal(answered, &b) == nil && a == b
	}
	if string(sent) == string(answered) || isZero(sent) && isZero(answered) {
		return true
	}
	a, okA := new(big.Rat).SetString(string(sent))
	b, okB := new(big.Rat).SetString(string(answered))
	return okA && okB && a.Cmp(b) == 0
}

func isZero(n json.RawMessage) bool {
	mant, _, _ := strings.Cut(strings.ToLower(string(n)), "e")
	return strings.Trim(mant, "-0.") == ""
}
