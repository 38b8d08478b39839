package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/taasky/taasky/negotiation"
)

// maxMessageDepth is how deep go-sdk's decoder lets a JSON-RPC message
// nest (its internal/json defaultMaxDepth), counting the message, its
// params and the arguments as three levels.
const maxMessageDepth = 1000

// beyondDecoder finds, in the arguments of a tools/call message, what
// go-sdk refuses before the tool is reached: a number past float64's range
// (it cannot read the call's name then, and answers 400 "failed to extract
// name"; its own client leaves the Mcp-Name header out and closes the
// session), or nesting past maxMessageDepth (400 "malformed payload"). It
// returns the message's id, the tool's name and that fault, named as any
// argument's is; nil when there is none, or when the body is not such a
// call (go-sdk answers it then).
func beyondDecoder(body []byte) (id jsontext.Value, tool string, f *negotiation.Fault) {
	if !mayBeBeyond(body) {
		return nil, "", nil
	}
	id, tool, args, ok := toolCallOf(body)
	if !ok || args.Kind() != '{' {
		return nil, "", nil
	}
	return id, tool, argumentsBeyond(args)
}

// toolCallOf reads body as one JSON-RPC tools/call request: its id (a
// string or a number), the tool's name and its arguments (empty when
// there are none); ok is false for any other body (a notification, another
// method, a batch, a call without a name), and for one go-sdk refuses to
// read: not JSON-RPC 2.0 ("jsonrpc"), or an id that is not valid UTF-8,
// which an answer would echo as it is, not JSON.
func toolCallOf(body []byte) (id jsontext.Value, tool string, args jsontext.Value, ok bool) {
	msg, err := objectMembers(body)
	if err != nil {
		return nil, "", nil, false
	}
	var method, version string
	var params jsontext.Value
	for _, m := range msg {
		switch m.name {
		case "jsonrpc":
			_ = json.Unmarshal(m.value, &version)
		case "id":
			id = m.value
		case "method":
			_ = json.Unmarshal(m.value, &method)
		case "params":
			params = m.value
		}
	}
	if version != "2.0" || method != "tools/call" || (id.Kind() != '"' && id.Kind() != '0') || !utf8.Valid(id) || params.Kind() != '{' {
		return nil, "", nil, false
	}
	p, err := objectMembers(json.RawMessage(params))
	if err != nil {
		return nil, "", nil, false
	}
	for _, m := range p {
		switch m.name {
		case "name":
			_ = json.Unmarshal(m.value, &tool)
		case "arguments":
			args = m.value
		}
	}
	if tool == "" {
		return nil, "", nil, false
	}
	return id, tool, args, true
}

// mayBeBeyond is a quick look at a body, byte by byte, for what
// beyondDecoder could find: a number with an exponent or 309 digits in a
// row (a float64 overflows with neither), or maxMessageDepth-2 opening
// brackets. It is true for every body beyondDecoder refuses, and false for
// most calls, which then cost no decoding (it runs on every call).
func mayBeBeyond(body []byte) bool {
	digits, opens := 0, 0
	for i, c := range body {
		switch {
		case '0' <= c && c <= '9':
			if digits++; digits > 308 {
				return true
			}
			continue
		case c == 'e' || c == 'E':
			if i > 0 && i+1 < len(body) && (isDigit(body[i-1]) || body[i-1] == '.') &&
				(isDigit(body[i+1]) || body[i+1] == '+' || body[i+1] == '-') {
				return true
			}
		case c == '{' || c == '[':
			if opens++; opens >= maxMessageDepth-2 {
				return true
			}
		}
		digits = 0
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// argumentsBeyond walks a call's arguments (an object) for the first
// number past float64's range or nesting past maxMessageDepth.
func argumentsBeyond(args jsontext.Value) *negotiation.Fault {
	dec := jsontext.NewDecoder(bytes.NewReader(args), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil // the end, or malformed: go-sdk or the tool says so
		}
		switch tok.Kind() {
		case '{', '[':
			if 2+dec.StackDepth() > maxMessageDepth { // the message and its params hold the arguments
				name := argumentOf(dec)
				return &negotiation.Fault{Field: name, Rule: negotiation.RuleInvalidValue,
					Message: name + ": nested too deep (a call nests at most " + strconv.Itoa(maxMessageDepth) + " levels)"}
			}
		case '0':
			if _, err := strconv.ParseFloat(tok.String(), 64); errors.Is(err, strconv.ErrRange) {
				at, n := fieldOf(dec), tok.String()
				if len(n) > 20 {
					n = n[:20] + "…"
				}
				return &negotiation.Fault{Field: at, Rule: negotiation.RuleInvalidValue,
					Message: at + ": the number " + n + " is out of range (a call's numbers stay within ±1.8e308)"}
			}
		}
	}
}

// argumentOf is the argument the value dec just read is in.
func argumentOf(dec *jsontext.Decoder) string {
	for tok := range dec.StackPointer().Tokens() {
		return tok
	}
	return "arguments"
}

// fieldOf names the value dec just read as the tools' faults do:
// limits.n.max, options[1].n[0]; past 200 bytes, its argument only.
func fieldOf(dec *jsontext.Decoder) string {
	var b strings.Builder
	i := 0
	for tok := range dec.StackPointer().Tokens() {
		i++
		switch kind, _ := dec.StackIndex(i); {
		case kind == '[':
			b.WriteString("[" + tok + "]")
		case i > 1:
			b.WriteString("." + tok)
		default:
			b.WriteString(tok)
		}
	}
	if b.Len() > 200 {
		return argumentOf(dec)
	}
	return b.String()
}
