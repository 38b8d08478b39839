package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
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
	d := &door{
		server:    s,
		mcp:       fiberhttp.Handler(s.handler),
		auth:      auth,
		limit:     newLimiter(s.rate, s.failures, s.trusted, time.Now),
		inflight:  newInFlight(s.perAccount),
		accountOf: map[int64]string{},
	}
	d.tokens, _ = auth.(OAuthAuthenticator)
	// The preflights first: r.All would take them to the bearer check.
	r.Options("/mcp/:account", preflight)
	r.All("/mcp/:account", d.serve)
	if d.tokens != nil {
		r.Options("/mcp", preflight)
		r.All("/mcp", d.serve)
	}
}

// DoorPath says whether path is the agents' door's (/mcp, /mcp/{account}):
// its answers, refusals included, are readable from any origin.
func DoorPath(path string) bool {
	return path == "/mcp" || strings.HasPrefix(path, "/mcp/")
}

// doorMethods are the methods a client of go-sdk's streamable HTTP
// transport sends: POST for its calls, GET for a stream of the server's
// messages and DELETE to end a session (both answered 405 by a stateless
// server, which a client takes as "none": a preflight refused instead
// would be a network error it cannot tell apart).
const doorMethods = "POST, GET, DELETE, OPTIONS"

// preflight answers a browser's CORS preflight of the door, without
// authentication (a preflight carries no Authorization header): the
// door takes a bearer token only, no cookie, so any origin may call it
// (fiberhttp.CORSAllowHeaders).
func preflight(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	c.Set(fiber.HeaderAccessControlAllowMethods, doorMethods)
	c.Set(fiber.HeaderAccessControlAllowHeaders, fiberhttp.CORSAllowHeaders)
	c.Set(fiber.HeaderAccessControlMaxAge, fiberhttp.CORSMaxAge)
	return c.SendStatus(fiber.StatusNoContent)
}

// answerRate is the least an agent reading a large answer must read on
// average, in bytes a second (1 Mbit/s): an agent runs where a network is,
// and the answer is held in memory while it reads (20 MB: at most about 3
// minutes).
const answerRate = 128 << 10

// door is the agents' door that Mount serves: each request is
// authenticated, admitted (rate limit, calls in progress), checked for
// what go-sdk would refuse in words of its own, then handed to go-sdk.
type door struct {
	server   *Server
	mcp      fiber.Handler
	auth     Authenticator
	tokens   OAuthAuthenticator // nil: agent keys only
	limit    *limiter           // nil: no rate or failure limit
	inflight *inFlight          // nil: no cap on an account's calls at once
	// accountOf is the account of each agent that authenticated here,
	// which the log line of a flood before the lookup names (refusedAgent).
	mu        sync.Mutex
	accountOf map[int64]string
}

func (d *door) serve(c *fiber.Ctx) error {
	// Every answer, a refusal too, is readable by a page of any origin
	// (preflight), with the headers its client acts on.
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	c.Set(fiber.HeaderAccessControlExposeHeaders, fiberhttp.CORSExposeHeaders)
	c.Locals(notNowServer{}, d.server)
	agent, id, ok, err := d.authorize(c)
	if !ok {
		return err
	}
	d.known(agent)
	if d.limit != nil {
		if ok, wait := d.limit.Take(id, agent.ID); !ok {
			d.server.refusedAgent(reasonRateLimit, agent.ID, agent.AccountSlug)
			return tooMany(c, d.limit.Limit(), wait)
		}
	}
	leave := func() {}
	if d.inflight != nil {
		if leave, ok = d.inflight.enter(agent.AccountID, len(c.Body())); !ok {
			d.server.refusedAgent(reasonAtOnce, agent.ID, agent.AccountSlug)
			return tooManyAtOnce(c, d.inflight.max)
		}
	}
	sending := false
	defer func() {
		if !sending {
			leave()
		}
	}()
	stopWatch := watchWait(c, leave)
	if c.Method() == fiber.MethodPost {
		if refused, err := d.server.refuseBeforeSDK(c); refused {
			d.server.refusedQuietly(reasonBadRequest)
			return err
		}
	}
	c.Locals(agentKey{}, agent)
	err = d.mcp(c)
	stopWatch() // before the answer is written
	sdkWords(c)
	size := len(c.Response().Body())
	if d.limit != nil {
		d.limit.Charged(agent.ID, size)
	}
	if size > answerUnit {
		// A large answer (a room's whole history, up to tens of MB) is
		// sent for as long as its client reads it at answerRate or more
		// (fiberhttp.Paced): it takes a slow connection more than the
		// server's WriteTimeout. It counts as in progress until written
		// (its body closed): written from memory, it holds that memory as
		// long as its client takes to read it, so one account's clients
		// that ask for large answers and read them slowly, or not at all,
		// hold at most as many as its calls at once (inflight.go). An
		// ordinary answer goes at once into the kernel's buffers.
		c.Response().SetBodyStream(fiberhttp.NewPaced(c, bytes.NewReader(c.Response().SwapBody(nil)), answerRate, leave), size)
		sending = true
	}
	return err
}

// authorize finds the agent of the request's bearer, and its key's id in
// the rate limiter; when it cannot (ok false), the refusal is answered.
func (d *door) authorize(c *fiber.Ctx) (agent app.Agent, id [32]byte, ok bool, err error) {
	account := c.Params("account") // "" at /mcp: the token's account
	realm := challenge(d.tokens, account)
	key, ok := bearer(c.Get(fiber.HeaderAuthorization))
	if !ok {
		d.server.refusedBearer(reasonNoBearer)
		c.Set(fiber.HeaderWWWAuthenticate, realm)
		return agent, id, false, c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": missingBearer(d.tokens)})
	}
	if d.limit != nil {
		id = keyID(key)
		if refused, reason, agentID, err := d.limit.Refused(c, id); refused {
			if reason == reasonRateLimit {
				d.server.refusedAgent(reason, agentID, d.account(agentID))
			} else {
				d.server.refusedBearer(reason)
			}
			return agent, id, false, err
		}
	}
	authCtx, cancel := context.WithTimeout(c.UserContext(), callTimeout) // a hung database answers 503 below
	agent, err = authenticate(authCtx, d.auth, d.tokens, key, account)
	cancel()
	switch {
	case err != nil && app.ErrorCodeOf(err) == app.ErrInternal:
		// The key could not be checked (the database did not answer): a
		// moment's unavailability, not the caller's fault. A tool call is
		// told what a call the database did not answer is told
		// (refusal): nothing was done. The database's failure is
		// logged where it is seen (/readyz, the pool, the jobs).
		d.server.refusedQuietly(reasonKeyUnchecked)
		return agent, id, false, notNow(c, fiber.StatusServiceUnavailable, unavailableRetry,
			"Taasky cannot check agent keys just now (its database did not answer); retry in a few seconds", app.RetryMessage)
	case err != nil:
		d.server.refusedBearer(reasonBadBearer)
		if d.limit != nil {
			d.limit.Failed(c, id)
		}
		c.Set(fiber.HeaderWWWAuthenticate, realm+`, error="invalid_token"`)
		return agent, id, false, c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": invalidBearer(d.tokens, key, err)})
	case account != "" && account != agent.AccountSlug:
		d.server.refusedQuietly(reasonWrongAccount)
		return agent, id, false, c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": "no such account"})
	}
	return agent, id, true, nil
}

// watchWait lets a waiting read (app.WaitingKey) stop counting as in
// progress as it waits (leave), and end when its client goes away
// (fiberhttp.ClientGone). The stop it returns ends the watch.
func watchWait(c *fiber.Ctx, leave func()) (stop func()) {
	var mu sync.Mutex
	var stopGone func()
	c.Locals(app.WaitingKey, func() <-chan struct{} {
		leave()
		gone, stop := fiberhttp.ClientGone(c)
		mu.Lock()
		stopGone = stop
		mu.Unlock()
		return gone
	})
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if stopGone != nil {
			stopGone()
		}
	}
}

// bearer is the token of an Authorization header of the Bearer scheme,
// whose name is case-insensitive (RFC 7235 §2.1; Taasky's own token
// answers say "bearer").
func bearer(header string) (string, bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	token = strings.TrimSpace(token)
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// known remembers agent's account, for the lines that name an agent
// refused before its bearer is looked up.
func (d *door) known(agent app.Agent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.accountOf[agent.ID]; !ok {
		if len(d.accountOf) >= maxKeys {
			clear(d.accountOf)
		}
		d.accountOf[agent.ID] = agent.AccountSlug
	}
}

// account is the account of an agent that authenticated here ("" if not
// remembered).
func (d *door) account(agent int64) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.accountOf[agent]
}
