package dashboard

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// maxClients caps the client addresses with a bucket (about 130 bytes
// each, so some 13 MB at most). Past it the address idle longest is
// forgotten: it gets a full bucket if it comes back, which is at most one
// burst more for it; nobody is refused for the cap.
const maxClients = 100_000

// limitStrangers spends a token of the client address's bucket (clientAddr),
// or answers 429 with Retry-After and a page saying when to try again. A
// refused request reaches neither the CSRF check nor its handler, so it
// reads and changes nothing.
func (d *Dashboard) limitStrangers(c *fiber.Ctx) error {
	if d.strangers == nil {
		return c.Next()
	}
	ok, wait := d.strangers.Take(d.clientAddr(c))
	if ok {
		return c.Next()
	}
	secs := ratelimit.RetryAfter(wait)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	c.Status(fiber.StatusTooManyRequests)
	w := d.words(c, nil)
	return d.renderPage(c, "error", &page{Title: w.T("error.too_many"), Data: w.T("error.try_again", secs)}, nil)
}
