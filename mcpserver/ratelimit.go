package mcpserver

import (
	"crypto/sha256"
	"fmt"
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
// up (Empty), costing the database nothing; unknown bearers never get a
// bucket (Take comes after the lookup).
type limiter struct {
	buckets *ratelimit.Buckets[int64]
	mu      sync.Mutex
	agentOf map[[32]byte]int64
}

// newLimiter is nil for the zero RateLimit.
func newLimiter(rl RateLimit, now func() time.Time) *limiter {
	b := ratelimit.New[int64](rl, maxKeys, now)
	if b == nil {
		return nil
	}
	return &limiter{buckets: b, agentOf: map[[32]byte]int64{}}
}

func keyID(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// Empty reports whether the bucket of the agent bearer id authenticated
// as before is empty (false for a bearer not seen yet), and how long until
// it holds a token.
func (l *limiter) Empty(id [32]byte) (bool, time.Duration) {
	l.mu.Lock()
	agent, ok := l.agentOf[id]
	l.mu.Unlock()
	if !ok {
		return false, 0
	}
	return l.buckets.Empty(agent)
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

// tooMany answers 429 with Retry-After (whole seconds, rounded up) and one
// line saying the rule.
func tooMany(c *fiber.Ctx, rl RateLimit, wait time.Duration) error {
	secs := ratelimit.RetryAfter(wait)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return c.Status(fiber.StatusTooManyRequests).JSON(fiber.Map{"error": fmt.Sprintf(
		"rate limit: at most %s calls a second per agent, all its keys and tokens together (bursts of %d); retry after %d s", strconv.FormatFloat(rl.Rate, 'f', -1, 64), rl.Burst, secs)})
}
