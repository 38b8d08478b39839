package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/negotiation"
)

// Authenticator finds the agent an API key belongs to (app.Accounts).
type Authenticator interface {
	AuthenticateAgentKey(ctx context.Context, key string) (app.Agent, error)
}

// Mount serves the tools at /mcp/:account on r. A request needs
// "Authorization: Bearer <agent key>": without one, or with an unknown or
// revoked key, it gets 401 with a WWW-Authenticate header; a key of another
// account gets 404, as an account the key cannot see does not exist for it.
//
// With an auth that is also an OAuthAuthenticator, OAuth access tokens are
// accepted too (oauth.go), and /mcp without an account as well.
//
// With a RateLimit (WithRateLimit), each agent gets a token bucket, which
// all its keys and access tokens draw on: a call beyond it gets 429 with
// Retry-After and one line saying the rule; an answer counts one call more
// per 100 KB, after the fact (limiter.Charged). With WithAuthFailureLimit, so
// does a client address past its failed authentications, before its
// bearer is looked up (unless it authenticated before). With
// WithAccountConcurrency, an account's requests past that many in
// progress at once get 429 with Retry-After too (inflight.go).
func (s *Server) Mount(r fiber.Router, auth Authenticator) {
	mcpHandler := fiberhttp.Handler(s.handler)
	limit := newLimiter(s.rate, s.failures, s.trusted, time.Now)
	inflight := newInFlight(s.perAccount)
	tokens, _ := auth.(OAuthAuthenticator)
	handle := func(c *fiber.Ctx) error {
		c.Locals(notNowServer{}, s)
		account := c.Params("account") // "" at /mcp: the token's account
		realm := challenge(tokens, account)
		key, ok := bearer(c.Get(fiber.HeaderAuthorization))
		if !ok {
			c.Set(fiber.HeaderWWWAuthenticate, realm)
			return c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": missingBearer(tokens)})
		}
		var id [32]byte
		if limit != nil {
			id = keyID(key)
			if refused, err := limit.Refused(c, id); refused {
				return err
			}
		}
		authCtx, cancel := context.WithTimeout(c.UserContext(), callTimeout) // a hung database answers 503 below
		agent, err := authenticate(authCtx, auth, tokens, key, account)
		cancel()
		if err != nil {
			if app.ErrorCodeOf(err) == app.ErrInternal {
				// The key could not be checked (the database did not
				// answer): a moment's unavailability, not the caller's
				// fault. A tool call is told what a call the database did
				// not answer is told (refusal): nothing was done.
				return notNow(c, fiber.StatusServiceUnavailable, unavailableRetry,
					"Taasky cannot check agent keys just now (its database did not answer); retry in a few seconds", app.RetryMessage)
			}
			if limit != nil {
				limit.Failed(c, id)
			}
			c.Set(fiber.HeaderWWWAuthenticate, realm+`, error="invalid_token"`)
			return c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": invalidBearer(tokens, key, err)})
		}
		if account != "" && account != agent.AccountSlug {
			return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": "no such account"})
		}
		if limit != nil {
			if ok, wait := limit.Take(id, agent.ID); !ok {
				return tooMany(c, limit.Limit(), wait)
			}
		}
		leave, sending := func() {}, false
		if inflight != nil {
			var ok bool
			if leave, ok = inflight.enter(agent.AccountID, len(c.Body())); !ok {
				return tooManyAtOnce(c, inflight.max)
			}
			defer func() {
				if !sending {
					leave()
				}
			}()
		}
		// A waiting read stops counting as in progress as it waits, and
		// ends when its client goes away (fiberhttp.ClientGone).
		var watch struct {
			sync.Mutex
			stop func()
		}
		c.Locals(app.WaitingKey, func() <-chan struct{} {
			leave()
			gone, stop := fiberhttp.ClientGone(c)
			watch.Lock()
			watch.stop = stop
			watch.Unlock()
			return gone
		})
		if c.Method() == fiber.MethodPost {
			if code, msg := badBody(c.Body()); msg != "" {
				return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"jsonrpc": "2.0", "id": nil,
					"error": fiber.Map{"code": code, "message": msg}})
			}
			if len(c.Body()) <= maxBody { // past it go-sdk answers 413
				if id, tool, f := beyondDecoder(c.Body()); f != nil && slices.Contains(s.names, tool) {
					// go-sdk would refuse the message before the tool is reached,
					// in words of its own: answered as the tool would refuse the
					// argument.
					s.metrics.observe(tool, outcomeRefused, 0)
					return c.JSON(fiber.Map{"jsonrpc": "2.0", "id": id,
						"result": refusal(&app.Error{Code: app.ErrInvalid, Message: f.Message, Faults: []negotiation.Fault{*f}})})
				}
			}
		}
		c.Locals(agentKey{}, agent)
		err = mcpHandler(c)
		watch.Lock()
		if watch.stop != nil {
			watch.stop() // before the answer is written
		}
		watch.Unlock()
		size := len(c.Response().Body())
		if limit != nil {
			limit.Charged(agent.ID, size)
		}
		if inflight != nil && size > answerUnit {
			// A large answer counts as in progress until it is written
			// (sentAnswer): written from memory, it holds that memory as
			// long as its client takes to read it.
			c.Response().SetBodyStream(&sentAnswer{Reader: bytes.NewReader(c.Response().SwapBody(nil)), sent: leave}, size)
			sending = true
		}
		return err
	}
	r.All("/mcp/:account", handle)
	if tokens != nil {
		r.All("/mcp", handle)
	}
}

// sentAnswer is an answer's body, written by fasthttp after the handler
// returned; it closes it once written, or when the write failed (the
// client gone, or slower than the server's WriteTimeout), and sent is
// called then. An ordinary answer (a few KB) goes at once into the
// kernel's buffers; an answer past answerUnit (a room's whole history,
// up to tens of MB) stays in memory for as long as its client takes to
// read it, and so counts as a call in progress of its account until then
// (inflight.go): one account's clients that ask for large answers and do
// not read them hold at most that many.
type sentAnswer struct {
	*bytes.Reader
	sent func()
}

func (a *sentAnswer) Close() error {
	a.sent()
	return nil
}

// bearer is the token of an Authorization header of the Bearer scheme,
// whose name is case-insensitive (RFC 7235 §2.1; Taasky's own token
// answers say "bearer").
func bearer(header string) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// badBody says, in one line, why a body is not a JSON-RPC message at all
// ("" if it may be one), and its JSON-RPC error code, before go-sdk
// answers with its decoder's internals ("json: cannot unmarshal … into Go
// struct field jsonrpc2.wireDecode.id of type float64"): not JSON (parse
// error), a batch, or a message whose members have the wrong type
// (invalid request). A tool call's arguments are the tool's to read. It
// reads the body once, as go-sdk's decoder matches the members (any case,
// the last of a name given twice; a lone surrogate escaped in a string is
// the tool's to name).
func badBody(b []byte) (int, string) {
	const parseError, invalidRequest = -32700, -32600
	const notJSON = "parse error: the body is not valid JSON (a JSON-RPC 2.0 message is expected)"
	if !utf8.Valid(b) {
		return parseError, "parse error: the body is not valid UTF-8"
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if dec.PeekKind() != '{' {
		switch {
		case !json.Valid(b):
			return parseError, notJSON
		case bytes.TrimLeft(b, " \t\r\n")[0] == '[':
			// A batch would carry any number of calls past the rate limit
			// in one request; MCP 2025-06-18 dropped batching.
			return invalidRequest, "batches are not supported: send one JSON-RPC message per request"
		}
		return invalidRequest, "invalid request: the body must be a JSON-RPC 2.0 message, a JSON object"
	}
	var version, id, method, params, fault, tool jsontext.Value
	if _, err := dec.ReadToken(); err != nil {
		return parseError, notJSON
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return parseError, notJSON
		}
		name := tok.String()
		if strings.EqualFold(name, "params") && dec.PeekKind() == '{' {
			// Into the params, for a tool call's name.
			params, tool = jsontext.Value("{}"), nil
			if _, err := dec.ReadToken(); err != nil {
				return parseError, notJSON
			}
			for dec.PeekKind() != '}' {
				tok, err := dec.ReadToken()
				if err != nil {
					return parseError, notJSON
				}
				isName := strings.EqualFold(tok.String(), "name")
				v, err := dec.ReadValue()
				if err != nil {
					return parseError, notJSON
				}
				if isName {
					tool = v.Clone()
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return parseError, notJSON
			}
			continue
		}
		v, err := dec.ReadValue()
		if err != nil {
			return parseError, notJSON
		}
		switch strings.ToLower(name) {
		case "jsonrpc":
			version = v.Clone()
		case "id":
			id = v.Clone()
		case "method":
			method = v.Clone()
		case "params":
			params, tool = v.Clone(), nil
		case "error":
			fault = jsontext.Value{byte(v.Kind())}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return parseError, notJSON
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return parseError, notJSON
	}
	var v string
	switch {
	case version.Kind() != '"' || json.Unmarshal(version, &v) != nil || v != "2.0":
		return invalidRequest, `invalid request: "jsonrpc" must be "2.0"`
	case !goodID(id):
		return invalidRequest, `invalid request: "id" must be a string or a whole number within ±9007199254740991`
	case method != nil && method.Kind() != '"':
		return invalidRequest, `invalid request: "method" must be a string`
	case params != nil && params.Kind() != '{' && params.Kind() != 'n':
		return invalidRequest, `invalid request: "params" must be an object`
	case fault != nil && fault[0] != '{' && fault[0] != 'n':
		return invalidRequest, `invalid request: "error" must be an object`
	case tool != nil && tool.Kind() != '"' && json.Unmarshal(method, &v) == nil && v == "tools/call":
		return invalidRequest, `invalid request: "params.name" must be a string, the tool's name`
	}
	return 0, ""
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
