package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// refuseBeforeSDK answers a POST whose body go-sdk would refuse in words
// of its own (its decoder's internals), and reports whether it did: a
// body that is not a JSON-RPC message (badBody), an Mcp-Protocol-Version
// header of no version it speaks (unsupportedVersion), or a tool call
// whose arguments its decoder cannot read (beyondDecoder), answered as
// the tool would refuse the argument. What go-sdk itself answers in its
// words is rewritten after it (sdkWords).
func (s *Server) refuseBeforeSDK(c *fiber.Ctx) (bool, error) {
	if code, msg, id := badBody(c.Body()); msg != "" {
		rpcError(c, fiber.StatusBadRequest, id, code, msg)
		return true, nil
	}
	if v := c.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(protocolVersions, v) {
		unsupportedVersion(c, v)
		return true, nil
	}
	if len(c.Body()) > MaxBody {
		return false, nil // go-sdk answers 413
	}
	id, tool, f := beyondDecoder(c.Body())
	if f == nil || !slices.Contains(s.names, tool) {
		return false, nil
	}
	s.metrics.observe(tool, outcomeRefused, 0)
	return true, c.JSON(fiber.Map{"jsonrpc": "2.0", "id": id,
		"result": refusal(&app.Error{Code: app.ErrInvalid, Message: f.Message, Faults: []negotiation.Fault{*f}})})
}

// protocolVersions are the MCP versions go-sdk speaks, newest first.
var protocolVersions = mcp.SupportedProtocolVersions()

// unsupportedVersion refuses a request whose Mcp-Protocol-Version header
// is no version this server speaks (MCP 2025-06-18 §2.7: 400), in one
// line naming the header, the value and the versions, with go-sdk's code
// and data for it (-32022, {supported, requested}: go-sdk's client of a
// newer protocol negotiates on them). go-sdk answered a value below
// 2026-07-28 with a 400 in text naming neither header nor value, and one
// above it without the request's _meta with -32602 "missing or invalid
// _meta field", blaming a member the client's version may not have.
func unsupportedVersion(c *fiber.Ctx, v string) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	_ = sdkUnmarshal(c.Body(), &req) // badBody read it: a message
	if len(req.ID) == 0 {
		req.ID = json.RawMessage("null")
	}
	last := len(protocolVersions) - 1
	msg := fmt.Sprintf("unsupported protocol version %q in the Mcp-Protocol-Version header: this server speaks %s and %s (send the version initialize or server/discover agreed)",
		v, strings.Join(protocolVersions[:last], ", "), protocolVersions[last])
	_ = c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"jsonrpc": "2.0", "id": req.ID, "error": fiber.Map{
		"code": mcp.CodeUnsupportedProtocolVersion, "message": msg,
		"data": mcp.UnsupportedProtocolVersionData{Supported: protocolVersions, Requested: v}}})
}

// paramsOf are the params go-sdk reads each method's into: a message
// whose params are of another type it answers with its decoder's words
// ("unmarshaling … into a *mcp.initializeParamsV2: json: cannot unmarshal
// \"7,…\" into Go struct field …", with code 0 for initialize);
// sdkWords says it in one line instead.
var paramsOf = map[string]func() any{
	"initialize":               func() any { return new(mcp.InitializeParams) },
	"ping":                     func() any { return new(mcp.PingParams) },
	"tools/list":               func() any { return new(mcp.ListToolsParams) },
	"tools/call":               func() any { return new(mcp.CallToolParamsRaw) },
	"resources/list":           func() any { return new(mcp.ListResourcesParams) },
	"resources/templates/list": func() any { return new(mcp.ListResourceTemplatesParams) },
	"resources/read":           func() any { return new(mcp.ReadResourceParams) },
	"resources/subscribe":      func() any { return new(mcp.SubscribeParams) },
	"resources/unsubscribe":    func() any { return new(mcp.UnsubscribeParams) },
	"prompts/list":             func() any { return new(mcp.ListPromptsParams) },
	"prompts/get":              func() any { return new(mcp.GetPromptParams) },
	"completion/complete":      func() any { return new(mcp.CompleteParams) },
	"logging/setLevel": func() any { // mcp.SetLoggingLevelParams, deprecated in 2026-07-28's protocol
		return new(struct {
			Meta  map[string]any `json:"_meta"`
			Level string         `json:"level"`
		})
	},
}

// sdkWords rewrites go-sdk's answers that are not in the words of
// JSON-RPC: a request whose params have a member of the wrong type (its
// decoder's message, with code 0 for initialize) is answered with one
// JSON-RPC error (-32602) naming the member and the type it must be; a
// request of a method go-sdk does not know (a 400 whose body is text,
// "JSON RPC not handled: …") with -32601 "method not found", its status
// kept; a request without params that needs them (a 400 in text, or
// code 0 for initialize's params null) with -32602 too.
// Only an answer that is an error is read (the request read again
// then): one that is not costs a read of its first members.
func sdkWords(c *fiber.Ctx) {
	answer := c.Response().Body()
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	status := c.Response().StatusCode()
	if status == fiber.StatusOK && !answersError(answer) {
		return
	}
	if sdkUnmarshal(c.Body(), &req) != nil {
		return
	}
	switch {
	case bytes.HasPrefix(answer, []byte("JSON RPC not handled")) || bytes.Contains(answer, []byte(`"message":"JSON RPC not handled`)):
		// Protocols before 2026-07-28: 400 in text; from it: 404, -32601
		// with go-sdk's words.
		if len(req.ID) == 0 || string(req.ID) == "null" {
			return // a notification gets no answer of JSON-RPC's: the 400 says it
		}
		rpcError(c, status, req.ID, -32601, "method not found: "+strconv.Quote(req.Method))
	case status == fiber.StatusBadRequest && bytes.Contains(answer, []byte("exceeded maximum nesting depth")):
		// go-sdk: "malformed payload: unmarshaling jsonrpc message: json:
		// exceeded maximum nesting depth of 1000", in text.
		rpcError(c, status, req.ID, -32600, tooDeep)
	case len(req.ID) > 0 && string(req.ID) != "null" && (bytes.HasPrefix(answer, []byte(`invalid request: missing required "params"`)) ||
		req.Method == "initialize" && string(req.Params) == "null" && bytes.Contains(answer, []byte(`"code":0,`))):
		// go-sdk: a 400 in text when params are missing; code 0 for
		// initialize's params null.
		msg := `invalid params: "params" is required, an object`
		if req.Method == "initialize" {
			msg += " with protocolVersion, capabilities and clientInfo"
		}
		rpcError(c, status, req.ID, -32602, msg)
	case (status == fiber.StatusOK || status == fiber.StatusBadRequest) && len(req.Params) > 0 && paramsOf[req.Method] != nil:
		err := sdkUnmarshal(req.Params, paramsOf[req.Method]())
		if typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err); ok && typeErr.Field != "" {
			typeErr.Value = valueKind(typeErr.Value)
			rpcError(c, status, req.ID, -32602, `invalid params: "params.`+typeErr.Field+`" `+typeFault(err, typeErr.Type))
		} else if list := (struct {
			Cursor string `json:"cursor"`
		}{}); strings.HasSuffix(req.Method, "/list") && err == nil &&
			sdkUnmarshal(req.Params, &list) == nil && list.Cursor != "" {
			// go-sdk says only "invalid params": a list's one param is its cursor.
			rpcError(c, status, req.ID, -32602, `invalid params: "params.cursor" must be a nextCursor this server gave (every item comes in the first page)`)
		}
	}
}

// sdkUnmarshal reads data as go-sdk's decoder does (its internal/json):
// segmentio's, members matched by their exact names ("ID" or "URI" is
// another member, which go-sdk ignores), the last of a name given twice.
// Read in any case (encoding/json), a rewritten answer took its id from
// "ID" and its faults from members go-sdk never read.
func sdkUnmarshal(data []byte, v any) error {
	dec := segjson.NewDecoder(bytes.NewReader(data))
	dec.DontMatchCaseInsensitiveStructFields()
	return dec.Decode(v)
}

// valueKind names the kind of the JSON value whose first bytes
// segmentio's type error quotes (as a Go string), as encoding/json names
// it.
func valueKind(text string) string {
	text = strings.TrimPrefix(text, `"`)
	switch {
	case strings.HasPrefix(text, `\"`):
		return "string"
	case text == "":
		return "value"
	case text[0] == '"':
		return "string"
	case text[0] == '{':
		return "object"
	case text[0] == '[':
		return "array"
	case text[0] == 't' || text[0] == 'f':
		return "bool"
	case text[0] == 'n':
		return "null"
	}
	return "number"
}

// answersError: the answer is a JSON-RPC error. go-sdk writes its
// messages compact, "jsonrpc" and "id" before "result" or "error", and
// neither name followed by ":" can stand inside a JSON string (its quote
// would be escaped): whichever comes first is the message's. A result is
// told from its first bytes, whatever its size.
func answersError(answer []byte) bool {
	r := bytes.Index(answer, []byte(`"result":`))
	if r < 0 {
		r = len(answer)
	}
	return bytes.Contains(answer[:r], []byte(`"error":`))
}

// rpcError answers with a JSON-RPC error.
func rpcError(c *fiber.Ctx, status int, id json.RawMessage, code int, msg string) {
	c.Response().ResetBody()
	_ = c.Status(status).JSON(fiber.Map{"jsonrpc": "2.0", "id": id, "error": fiber.Map{"code": code, "message": msg}})
}

// badBody says, in one line, why a body is not a JSON-RPC message at all
// ("" if it may be one), and its JSON-RPC error code, before go-sdk
// answers with its decoder's internals ("json: cannot unmarshal … into Go
// struct field jsonrpc2.wireDecode.id of type float64"): not JSON (parse
// error), a batch, or a message whose members have the wrong type
// (invalid request). A tool call's arguments are the tool's to read. It
// reads the body once, as go-sdk's decoder matches the members (by their
// exact names, the last of a name given twice; a lone surrogate escaped
// in a string is the tool's to name). A message refused whose id is good
// is answered with that id (JSON-RPC 2.0 §5: null only when the id could
// not be read), so a client ties the refusal to its request.
func badBody(b []byte) (int, string, json.RawMessage) {
	code, msg, id := readEnvelope(b)
	if msg == notJSON && nestsDeeperThan(b, maxMessageDepth) {
		// jsontext's limit is 10,000 levels; go-sdk's, 1000.
		return -32600, tooDeep, nil
	}
	if msg == "" || !goodID(id) {
		id = nil
	}
	return code, msg, json.RawMessage(id)
}

const (
	notJSON = "parse error: the body is not valid JSON (a JSON-RPC 2.0 message is expected)"
	tooDeep = "invalid request: the message nests arrays and objects more than 1000 levels deep"
)

// nestsDeeperThan: b nests arrays and objects more than limit levels deep,
// counted as go-sdk's decoder counts them (brackets outside strings).
func nestsDeeperThan(b []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return true
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return false
}

// readEnvelope is badBody's read of the message.
func readEnvelope(b []byte) (int, string, jsontext.Value) {
	const parseError, invalidRequest = -32700, -32600
	if !utf8.Valid(b) {
		return parseError, "parse error: the body is not valid UTF-8", nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if dec.PeekKind() != '{' {
		switch {
		case !json.Valid(b):
			return parseError, notJSON, nil
		case bytes.TrimLeft(b, " \t\r\n")[0] == '[':
			// A batch would carry any number of calls past the rate limit
			// in one request; MCP 2025-06-18 dropped batching.
			return invalidRequest, "batches are not supported: send one JSON-RPC message per request", nil
		}
		return invalidRequest, "invalid request: the body must be a JSON-RPC 2.0 message, a JSON object", nil
	}
	var version, id, method, params, result, fault, tool jsontext.Value
	if _, err := dec.ReadToken(); err != nil {
		return parseError, notJSON, nil
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return parseError, notJSON, nil
		}
		name := tok.String()
		if name == "params" && dec.PeekKind() == '{' {
			// Into the params, for a tool call's name.
			params, tool = jsontext.Value("{}"), nil
			if _, err := dec.ReadToken(); err != nil {
				return parseError, notJSON, nil
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return parseError, notJSON, nil
				}
				isName := tok.String() == "name"
				v, err := dec.ReadValue()
				if err != nil {
					return parseError, notJSON, nil
				}
				if isName {
					tool = v.Clone()
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return parseError, notJSON, nil
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return parseError, notJSON, nil
		}
		switch name {
		case "jsonrpc":
			version = v.Clone()
		case "id":
			id = v.Clone()
		case "method":
			method = v.Clone()
		case "params":
			params, tool = v.Clone(), nil
		case "result":
			result = jsontext.Value{byte(v.Kind())}
		case "error":
			fault = jsontext.Value{byte(v.Kind())}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return parseError, notJSON, nil
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return parseError, notJSON, nil
	}
	var v string
	switch {
	case version.Kind() != '"' || json.Unmarshal(version, &v) != nil || v != "2.0":
		return invalidRequest, `invalid request: "jsonrpc" must be "2.0"`, id
	case !goodID(id):
		return invalidRequest, `invalid request: "id" must be a string or a whole number within ±9007199254740991`, id
	case method == nil && result == nil && fault == nil:
		return invalidRequest, `invalid request: a message needs "method" (a request or a notification), or "result" or "error" (a response)`, id
	case method != nil && method.Kind() != '"':
		return invalidRequest, `invalid request: "method" must be a string`, id
	case params != nil && params.Kind() != '{' && params.Kind() != 'n':
		return invalidRequest, `invalid request: "params" must be an object`, id
	case fault != nil && fault[0] != '{' && fault[0] != 'n':
		return invalidRequest, `invalid request: "error" must be an object`, id
	case tool != nil && tool.Kind() != '"' && json.Unmarshal(method, &v) == nil && v == "tools/call":
		return invalidRequest, `invalid request: "params.name" must be a string, the tool's name`, id
	}
	return 0, "", id
}

// goodID: a JSON-RPC id go-sdk keeps as it was sent (none, null, a string
// or a whole number float64 holds exactly): it reads a number as a
// float64 and answers with its integer part, so 1.5 was answered as 1.
// A whole number is one by its value, as JSON Schema's "integer" (MCP's
// RequestId) says: 1.0 and 1e2 are ids as 1 and 100 are.
func goodID(id jsontext.Value) bool {
	if id == nil || id.Kind() == 'n' || id.Kind() == '"' {
		return true
	}
	return id.Kind() == '0' && wholeNumber(string(id))
}

// wholeNumber: the JSON number s has a whole value within ±(2^53-1),
// read from its digits (no float64 rounding 9007199254740990.5 to a whole
// number).
func wholeNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimRight(whole+frac, "0")
	point := len(whole) // how many of digits stand before the decimal point
	for len(digits) > 0 && digits[0] == '0' {
		digits, point = digits[1:], point-1
	}
	if digits == "" {
		return true // zero, whatever its exponent
	}
	if exp != "" {
		e, err := strconv.Atoi(exp)
		if err != nil || e > 100 || e < -100 {
			return false // far out of range, or a fraction
		}
		point += e
	}
	if point < len(digits) || point > 16 {
		return false // a fraction, or past 2^53 (16 digits)
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", point-len(digits)), 10, 64)
	return err == nil && n <= 1<<53-1
}
