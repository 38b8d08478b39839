package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/notify"
)

// serviceWorker serves the Web Push service worker at the root, so that
// its scope is the whole site: it shows Taasky's pushes and opens their
// link on a tap. Browsers check for a new version at every registration;
// no-cache keeps them from holding an old one.
func (d *Dashboard) serviceWorker(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	c.Set("Service-Worker-Allowed", "/")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Content-Security-Policy", "default-src 'self'")
	return c.SendString(notify.ServiceWorkerJS)
}
