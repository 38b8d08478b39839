package dashboard

import (
	"net/netip"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// maxClients caps the client addresses with a bucket (about 130 bytes
// each, so some 13 MB at most). Past it the address idle longest is
// forgotten: it gets a full bucket if it comes back, which is at most one
// burst more for it; nobody is refused for the cap.
const maxClients = 100_000

// oneClickFactor is how much larger than a stranger's the bucket of the
// one-click POSTs (RFC 8058: /unsubscribe and /refuse) is, per client
// address: a large mail provider sends its users' one-click unsubscribes
// from a few servers, which the strangers' limit (2 a second, 20 at once)
// would refuse, and which would spend the budget of the people behind the
// same addresses. With the defaults, 100 a second and 1,000 at once.
// Each POST needs the token its mail carried, so the bucket bounds only
// the requests' cost, not a search for tokens.
const oneClickFactor = 50

// oneClickLimit is the one-click POSTs' limit for the strangers' l (none
// when they have none).
func oneClickLimit(l ratelimit.Limit) ratelimit.Limit {
	return ratelimit.Limit{Rate: l.Rate * oneClickFactor, Burst: max(l.Burst, 1) * oneClickFactor}
}

// limitOneClick is limitStrangers for the one-click POSTs, with their own
// bucket per client address (oneClickLimit).
func (d *Dashboard) limitOneClick(c *fiber.Ctx) error { return d.limitBy(c, d.oneClick) }

// limitStrangers spends a token of the client address's bucket (clientAddr),
// or answers 429 with Retry-After and a page saying when to try again. A
// refused request reaches neither the CSRF check nor its handler, so it
// reads and changes nothing.
func (d *Dashboard) limitStrangers(c *fiber.Ctx) error { return d.limitBy(c, d.strangers) }

func (d *Dashboard) limitBy(c *fiber.Ctx, buckets *ratelimit.Buckets[netip.Addr]) error {
	if buckets == nil {
		return c.Next()
	}
	ok, wait := buckets.Take(d.clientAddr(c))
	if ok {
		return c.Next()
	}
	secs := ratelimit.RetryAfter(wait)
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	c.Status(fiber.StatusTooManyRequests)
	w := d.words(c, nil)
	return d.renderPage(c, "error", &page{Title: w.T("error.too_many"), Data: w.T("error.try_again", secs)}, nil)
}
