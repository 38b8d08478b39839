package mcpserver

import (
	"crypto/sha256"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// RateLimit is a token bucket per agent key on /mcp: Rate calls a second
// sustained, Burst at once. The zero RateLimit (Rate 0) is no limit. Each
// process keeps its own buckets, so N web processes allow N times the rate.
type RateLimit struct {
	Rate  float64
	Burst int
}

// limiter holds one bucket per agent key that authenticated. A flood on a
// key whose bucket is empty is answered before the key is looked up, so it
// costs the database nothing; unknown keys never get a bucket.
type limiter struct {
	rl      RateLimit
	now     func() time.Time
	mu      sync.Mutex
	buckets map[[32]byte]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(rl RateLimit, now func() time.Time) *limiter {
	if rl.Rate <= 0 {
		return nil
	}
	if rl.Burst < 1 {
		rl.Burst = 1
	}
	return &limiter{rl: rl, now: now, buckets: map[[32]byte]*bucket{}, swept: now()}
}

func keyID(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// refill brings b up to now; the caller holds l.mu.
func (l *limiter) refill(b *bucket, now time.Time) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = math.Min(float64(l.rl.Burst), b.tokens+d.Seconds()*l.rl.Rate)
		b.at = now
	}
}

// wait is how long until b holds a whole token; the caller holds l.mu.
func (l *limiter) wait(b *bucket) time.Duration {
	return time.Duration((1 - b.tokens) / l.rl.Rate * float64(time.Second))
}

// empty reports, before authentication, whether the key's bucket exists
// and is empty, and for how long it stays so.
func (l *limiter) empty(id [32]byte) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[id]
	if b == nil {
		return false, 0
	}
	l.refill(b, l.now())
	if b.tokens >= 1 {
		return false, 0
	}
	return true, l.wait(b)
}

// take spends a token of an authenticated key's bucket.
func (l *limiter) take(id [32]byte) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	b := l.buckets[id]
	if b == nil {
		b = &bucket{tokens: float64(l.rl.Burst), at: now}
		l.buckets[id] = b
	}
	l.refill(b, now)
	if b.tokens < 1 {
		return false, l.wait(b)
	}
	b.tokens--
	return true, 0
}

// sweep drops, once a minute, the buckets that are full again: they hold
// nothing a new bucket would not. The caller holds l.mu.
func (l *limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	full := time.Duration(float64(l.rl.Burst) / l.rl.Rate * float64(time.Second))
	for id, b := range l.buckets {
		if now.Sub(b.at) >= full {
			delete(l.buckets, id)
		}
	}
}

// tooMany answers 429 with Retry-After (whole seconds, rounded up) and one
// line saying the rule.
func (l *limiter) tooMany(c *fiber.Ctx, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return c.Status(fiber.StatusTooManyRequests).JSON(fiber.Map{"error": fmt.Sprintf(
		"rate limit: at most %s calls a second per agent key (bursts of %d); retry after %d s", strconv.FormatFloat(l.rl.Rate, 'f', -1, 64), l.rl.Burst, secs)})
}
