package mcpserver

import (
	"crypto/sha256"
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// RateLimit is a token bucket per agent on /mcp, which all its keys and
// OAuth access tokens draw on: Rate calls a second sustained, Burst at
// once. The zero RateLimit (Rate 0) is no limit. Each process keeps its
// own buckets, so N web processes allow N times the rate.
type RateLimit = ratelimit.Limit

// maxKeys caps the agents with a bucket, and the bearers remembered as
// theirs: past it, the agent idle longest is forgotten (and gets a full
// bucket when it comes back), and the bearers are learnt afresh. Only
// agents that authenticated get one, so this is reached only by that many
// busy agents.
const maxKeys = 100_000

// limiter holds one bucket per agent that authenticated (an agent with a
// second key, or a fresh access token, gets no second bucket), and which
// agent each bearer that authenticated is, so that a flood on a bearer of
// an agent whose bucket is empty is answered before the bearer is looked
// up (Refused), costing the database nothing; unknown bearers never get a
// bucket (Take comes after the lookup). It also holds one bucket per
// client address that failed to authenticate (Failed): past it, bearers
// from there that did not authenticate before are refused before they are
// looked up (Refused), so that a stream of unknown or revoked bearers
// costs the database at most the bucket's failures, and an agent whose
// bearer is known is never slowed by others' failures, even from its own
// address.
type limiter struct {
	buckets  *ratelimit.Buckets[int64]      // nil: no limit per agent
	failures *ratelimit.Buckets[netip.Addr] // nil: no limit on failures
	trusted  []netip.Prefix
	mu       sync.Mutex
	agentOf  map[[32]byte]int64
}

// newLimiter is nil when neither rl nor failures limits.
func newLimiter(rl, failures RateLimit, trusted []netip.Prefix, now func() time.Time) *limiter {
	b := ratelimit.New[int64](rl, maxKeys, now)
	f := ratelimit.New[netip.Addr](failures, maxKeys, now)
	if b == nil && f == nil {
		return nil
	}
	return &limiter{buckets: b, failures: f, trusted: trusted, agentOf: map[[32]byte]int64{}}
}

func keyID(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// agent is the agent bearer id authenticated as before, if it did.
func (l *limiter) agent(id [32]byte) (int64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	agent, ok := l.agentOf[id]
	return agent, ok
}

// Empty reports whether the bucket of the agent bearer id authenticated
// as before is empty (false for a bearer not seen yet), and how long until
// it holds a token.
func (l *limiter) Empty(id [32]byte) (bool, time.Duration) {
	agent, ok := l.agent(id)
	if !ok {
		return false, 0
	}
	return l.buckets.Empty(agent)
}

// Refused answers c, with bearer id, with 429 before the bearer is looked
// up when its agent's bucket is empty, or, for a bearer that did not
// authenticate before, when its client address has no failures left; it
// reports whether it answered, and why (reasonRateLimit, with the agent,
// or reasonAuthFailures).
func (l *limiter) Refused(c *fiber.Ctx, id [32]byte) (refused bool, reason string, agent int64, err error) {
	if agent, ok := l.agent(id); ok {
		if empty, wait := l.buckets.Empty(agent); empty {
			return true, reasonRateLimit, agent, tooMany(c, l.buckets.Limit(), wait)
		}
		return false, "", 0, nil
	}
	if empty, wait := l.failures.Empty(l.client(c)); empty {
		return true, reasonAuthFailures, 0, tooManyFailures(c, l.failures.Limit(), wait)
	}
	return false, "", 0, nil
}

// Failed counts a failed authentication of bearer id against c's client
// address, and forgets the bearer's agent (a key revoked since).
func (l *limiter) Failed(c *fiber.Ctx, id [32]byte) {
	l.mu.Lock()
	delete(l.agentOf, id)
	l.mu.Unlock()
	if l.failures != nil {
		l.failures.Take(l.client(c))
	}
}

// client is the address c counts against (ratelimit.ClientAddr).
func (l *limiter) client(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return ratelimit.ClientAddr(peer, c.Request().Header.PeekAll(fiber.HeaderXForwardedFor), l.trusted)
}

// Take spends a token of agent's bucket, and remembers bearer id as the
// agent's.
func (l *limiter) Take(id [32]byte, agent int64) (bool, time.Duration) {
	l.mu.Lock()
	if _, ok := l.agentOf[id]; !ok {
		if len(l.agentOf) >= maxKeys {
			clear(l.agentOf) // each is looked up once more, then known again
		}
		l.agentOf[id] = agent
	}
	l.mu.Unlock()
	return l.buckets.Take(agent)
}

func (l *limiter) Limit() RateLimit { return l.buckets.Limit() }

// answerUnit is how many bytes of an answer count as one more call.
const answerUnit = MaxBody / 10

// Charged counts an answer of size bytes against agent's bucket: one call
// more per answerUnit (100 KB) in it, after the fact. A call's request is
// small whatever it asks for, and a read of a room's whole history
// (negotiation_read with history) answers every round's terms, tens of
// megabytes in a long log of terms of the largest size: each such read
// costs the process what hundreds of ordinary calls cost, and the agent's
// next calls now wait for it as for that many. Ordinary answers (a few
// KB) count nothing more.
func (l *limiter) Charged(agent int64, size int) {
	l.buckets.Charge(agent, float64(size/answerUnit))
}

// tooMany answers 429 with Retry-After (whole seconds, rounded up) and one
// line saying the rule (a tool call: a tool error saying it, notNow).
func tooMany(c *fiber.Ctx, rl RateLimit, wait time.Duration) error {
	secs := ratelimit.RetryAfter(wait)
	msg := fmt.Sprintf("rate limit: at most %s calls a second per agent, all its keys and tokens together (bursts of %d); retry after %d s",
		strconv.FormatFloat(rl.Rate, 'f', -1, 64), rl.Burst, secs)
	return notNow(c, fiber.StatusTooManyRequests, secs, msg, msg)
}

// tooManyFailures answers 429 with Retry-After and one line saying the
// rule on failed authentications (rl: Burst a minute; a tool call: a tool
// error saying it, notNow).
func tooManyFailures(c *fiber.Ctx, rl RateLimit, wait time.Duration) error {
	secs := ratelimit.RetryAfter(wait)
	msg := fmt.Sprintf("too many failed authentications from this address: at most %d a minute with an unknown, revoked or malformed bearer; retry after %d s", rl.Burst, secs)
	return notNow(c, fiber.StatusTooManyRequests, secs, msg, msg)
}
