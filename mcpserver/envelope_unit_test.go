package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestWholeNumberAsJSONSchemaInteger: an id is a whole number by its
// value (JSON Schema's "integer", MCP's RequestId) within ±(2^53-1),
// however it is written: a fraction with zeros, an exponent that moves
// the point either way, leading zeros after the point. Each is read as
// referenceID reads it, an exact rational.
func TestWholeNumberAsJSONSchemaInteger(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "-0": true, "0.0e5": true, "0e-999": true,
		"1": true, "-1": true, "1.0": true, "1e2": true, "1E2": true, "1e+2": true, "12.500e1": true, "100e-2": true,
		"0.5e1": true, "0.01e2": true, "0.0000000000000001e16": true, "0.000000000000000000001e21": true,
		"100000000000000000000000e-23": true, "1e15": true, "9.007199254740991e15": true,
		"9007199254740991": true, "-9007199254740991": true, "90071992547409910e-1": true,
		"0.5": false, "-0.5": false, "1.5": false, "1e-1": false, "0.05e1": false, "12.5e0": false,
		"9007199254740992": false, "-9007199254740992": false, "1e16": false, "9007199254740990.5": false,
		"1e101": false, "1e-101": false, "1e99999999999999999999": false,
	} {
		if ref := referenceID(json.RawMessage(s)); ref != want {
			t.Fatalf("%s: the reference says %v: the table is wrong", s, ref)
		}
		if got := wholeNumber(s); got != want {
			t.Errorf("wholeNumber(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestNestsDeeperThanCountsAsGoSDK: the depth is that of arrays and
// objects, brackets outside strings only (an escaped quote does not end a
// string, an escaped backslash does not escape the quote after it), each
// closed bracket a level less; exactly limit levels is not deeper.
func TestNestsDeeperThanCountsAsGoSDK(t *testing.T) {
	for _, c := range []struct {
		body  string
		limit int
		want  bool
	}{
		{`[[[]]]`, 3, false},
		{`[[[[]]]]`, 3, true},
		{`{"a":{"b":[1]}}`, 3, false},
		{`{"a":{"b":[{}]}}`, 3, true},
		{`[[[{}]]]`, 3, true},
		{`[][][][]`, 1, false},
		{`{}{}{}{}`, 1, false},
		{`["[[[[["]`, 1, false},
		{`["x",[[[]]]]`, 2, true},
		{`["\"[[[[",1]`, 1, false},
		{`["\\",[[[]]]]`, 2, true},
		{`["\\\"[[",["\\"]]`, 2, false},
	} {
		if got := nestsDeeperThan([]byte(c.body), c.limit); got != c.want {
			t.Errorf("nestsDeeperThan(%s, %d) = %v, want %v", c.body, c.limit, got, c.want)
		}
	}
}

// TestDeepBodyNotJSONRefusedAsGoSDK: a body that is not JSON and nests
// past go-sdk's 1000 levels is refused as too deep, as go-sdk's decoder
// refuses it (it stops at the depth before it meets the JSON's end);
// exactly 1000 levels is refused as not JSON, as go-sdk refuses it.
func TestDeepBodyNotJSONRefusedAsGoSDK(t *testing.T) {
	for _, levels := range []int{999, 1000, 1001, 1002} {
		body := []byte(`{"a":` + strings.Repeat("[", levels-1))
		_, sdkErr := jsonrpc.DecodeMessage(body)
		deep := sdkErr != nil && strings.Contains(sdkErr.Error(), "exceeded maximum nesting depth")
		if deep != (levels > maxMessageDepth) {
			t.Fatalf("%d levels: go-sdk says %v: the test's premise is wrong", levels, sdkErr)
		}
		want := notJSON
		if deep {
			want = tooDeep
		}
		if _, msg, _ := badBody(body); msg != want {
			t.Errorf("%d levels, not JSON: %q, want %q", levels, msg, want)
		}
	}
}

// TestBatchAfterWhitespace: a batch is named as one whatever whitespace
// JSON allows before it (RFC 8259 §2), as it is without.
func TestBatchAfterWhitespace(t *testing.T) {
	for _, ws := range []string{"", " ", "\n", "\r\n\t "} {
		body := ws + `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`
		if code, msg, _ := badBody([]byte(body)); code != -32600 || !strings.HasPrefix(msg, "batches are not supported") {
			t.Errorf("%q: %d %q, want -32600 naming batches", body, code, msg)
		}
	}
}

// TestResponsesPassTheEnvelope: a client's response (to a request of the
// server's) is a JSON-RPC message with "result" or "error" and no method;
// the envelope check leaves every one go-sdk's decoder reads as a
// response to go-sdk, "error": null included.
func TestResponsesPassTheEnvelope(t *testing.T) {
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"r","result":null}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"error":null}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":null}`,
	} {
		if _, err := jsonrpc.DecodeMessage([]byte(body)); err != nil {
			t.Fatalf("%s: go-sdk does not read it: %v", body, err)
		}
		if code, msg, _ := badBody([]byte(body)); msg != "" {
			t.Errorf("%s: refused %d %q, want it left to go-sdk", body, code, msg)
		}
	}
}

// TestBodyNotUTF8: JSON is UTF-8 (RFC 8259 §8.1): a body that is not is
// refused as a parse error saying so, whatever JSON it would otherwise
// be, before go-sdk reads it.
func TestBodyNotUTF8(t *testing.T) {
	for _, body := range []string{"\xff", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"` + "\xff" + `"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_list","arguments":{"q":"` + "\xc3\x28" + `"}}}`} {
		if code, msg, _ := badBody([]byte(body)); code != -32700 || msg != "parse error: the body is not valid UTF-8" {
			t.Errorf("%q: %d %q, want -32700 saying the body is not valid UTF-8", body, code, msg)
		}
	}
}
