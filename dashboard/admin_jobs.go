package dashboard

import (
	"net/url"

	"github.com/gofiber/fiber/v2"
)

// jobsUIPolicy is the River UI's Content-Security-Policy: its own scripts
// and styles (it sets inline styles), its API, nothing from elsewhere.
const jobsUIPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// operatorsOnly lets signed-in operators through to the operators' pages
// (the River UI at /admin/jobs). Nobody signed in is sent to sign in first;
// a signed-in user who is not an operator gets 404, as if there were no
// such page. The River UI's API changes jobs with JSON requests that carry
// no form token: a change must come from a page of this origin.
func (d *Dashboard) operatorsOnly(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	ok, err := d.accounts.IsOperator(c.UserContext(), v.user.ID)
	if err != nil {
		return d.fail(c, err)
	}
	if !ok {
		return d.notFoundPage(c) // as any path no route takes
	}
	if m := c.Method(); m != fiber.MethodGet && m != fiber.MethodHead && !d.sameOrigin(c) {
		return c.Status(fiber.StatusForbidden).SendString("cross-origin request refused")
	}
	c.Set("Content-Security-Policy", jobsUIPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "same-origin")
	// Jobs' arguments hold people's addresses: not kept in the browser's
	// cache (the UI's own bundles may say otherwise, after this).
	c.Set("Cache-Control", "no-store")
	return c.Next()
}

// sameOrigin reports whether a request says it comes from a page of this
// service (Sec-Fetch-Site, else Origin); one that says neither is refused.
func (d *Dashboard) sameOrigin(c *fiber.Ctx) bool {
	if site := c.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin"
	}
	origin := c.Get(fiber.HeaderOrigin)
	if origin == "" {
		return false
	}
	o, err1 := url.Parse(origin)
	b, err2 := url.Parse(d.baseURL)
	return err1 == nil && err2 == nil && o.Scheme == b.Scheme && o.Host == b.Host
}
