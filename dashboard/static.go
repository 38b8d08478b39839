package dashboard

import (
	"embed"
	"path"

	"github.com/gofiber/fiber/v2"
)

//go:embed static
var staticFiles embed.FS

var staticTypes = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".svg": "image/svg+xml"}

// static serves the embedded stylesheet and script.
func (d *Dashboard) static(c *fiber.Ctx) error {
	name := c.Params("file")
	typ, ok := staticTypes[path.Ext(name)]
	b, err := staticFiles.ReadFile("static/" + name)
	if !ok || err != nil {
		return c.Status(fiber.StatusNotFound).SendString("not found")
	}
	c.Set(fiber.HeaderContentType, typ)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	return c.Send(b)
}
