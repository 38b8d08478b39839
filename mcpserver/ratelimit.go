package mcpserver

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// RateLimit is a token bucket per agent key on /mcp: Rate calls a second
// sustained, Burst at once. The zero RateLimit (Rate 0) is no limit. Each
// process keeps its own buckets, so N web processes allow N times the rate.
type RateLimit = ratelimit.Limit

// maxKeys caps the agent keys with a bucket: past it, the one idle longest
// is forgotten (and gets a full bucket when it comes back). Only keys that
// authenticated get one, so this is reached only by that many busy agents.
const maxKeys = 100_000

// newLimiter holds one bucket per agent key that authenticated. A flood on
// a key whose bucket is empty is answered before the key is looked up
// (Empty), so it costs the database nothing; unknown keys never get a
// bucket (Take comes after the lookup). Nil for the zero RateLimit.
func newLimiter(rl RateLimit, now func() time.Time) *ratelimit.Buckets[[32]byte] {
	return ratelimit.New[[32]byte](rl, maxKeys, now)
}

func keyID(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// tooMany answers 429 with Retry-After (whole seconds, rounded up) and one
// line saying the rule.
func tooMany(c *fiber.Ctx, rl RateLimit, wait time.Duration) error {
	secs := ratelimit.RetryAfter(wait)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	return c.Status(fiber.StatusTooManyRequests).JSON(fiber.Map{"error": fmt.Sprintf(
		"rate limit: at most %s calls a second per agent key (bursts of %d); retry after %d s", strconv.FormatFloat(rl.Rate, 'f', -1, 64), rl.Burst, secs)})
}
