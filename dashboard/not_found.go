package dashboard

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// notFound answers what no route of the app took (Mount adds it last, as
// middleware of every path): the humans' error page, in the reader's
// language, with status 404, rather than Fiber's plain "Cannot GET …".
// It asks the rest of the app first, so a route added after Mount still
// answers, a path with a route for another method is still 405, and the
// other doors' paths (otherDoor) keep the plain answer their clients read.
func (d *Dashboard) notFound(c *fiber.Ctx) error {
	err := c.Next()
	fe, ok := errors.AsType[*fiber.Error](err)
	if !ok || fe.Code != fiber.StatusNotFound || !strings.HasPrefix(fe.Message, "Cannot ") || otherDoor(c.Path()) {
		return err
	}
	if u, ok, err := d.sessionUser(c); ok && err == nil {
		d.words(c, &viewer{user: u}) // a signed-in person's own language
	}
	return d.notFoundPage(c)
}

// notFoundPage is the page of a path that is not one: 404, with the
// pages' security headers.
func (d *Dashboard) notFoundPage(c *fiber.Ctx) error {
	d.setHeaders(c)
	c.Status(fiber.StatusNotFound)
	w := d.words(c, nil)
	return d.renderPage(c, "error", &page{Title: w.T("web14_not_found_title"), Data: w.T("web14_not_found")}, nil)
}

// otherDoor reports whether path belongs to a door other than the
// humans' pages: the agents' MCP endpoint, the authorization server, the
// metadata documents, an API, the probes and metrics, the development
// identity provider.
func otherDoor(path string) bool {
	for _, p := range []string{"/mcp", "/oauth", "/.well-known", "/api", "/metrics", "/healthz", "/readyz", "/dev-oidc"} {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
