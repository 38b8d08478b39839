package fiberhttp

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestRequestIDOnlyFromProxies: an X-Request-Id is the proxy's (nginx's
// $request_id): it is taken from a peer in TRUSTED_PROXIES only, as
// X-Forwarded-For is. Before, any client's was taken and written to
// every line logged about its request: a client named its own lines, and
// could give them the id of another's request (one a support ticket
// showed) or the form of Taasky's own, so that an id no longer led the
// operator to one request.
func TestRequestIDOnlyFromProxies(t *testing.T) {
	own := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, c := range []struct {
		name    string
		trusted []netip.Prefix
		sent    string
		kept    bool
	}{
		{"no proxies", nil, "lb-4711", false},
		{"another proxy", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "lb-4711", false},
		{"the proxy", []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32")}, "lb-4711", true}, // app.Test's peer
		{"the proxy, a bad id", []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32")}, "a\"b", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			app.Use(RequestIDFrom(c.trusted))
			logged := ""
			app.Get("/", func(ctx *fiber.Ctx) error {
				logged = RequestIDOf(ctx.UserContext())
				return ctx.SendStatus(http.StatusNoContent)
			})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set(HeaderRequestID, c.sent)
			resp, err := app.Test(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got := resp.Header.Get(HeaderRequestID)
			if got != logged {
				t.Errorf("answered %q, logged %q", got, logged)
			}
			if c.kept && got != c.sent || !c.kept && !own.MatchString(got) {
				t.Errorf("X-Request-Id %q from this peer answered %q", c.sent, got)
			}
		})
	}
}
