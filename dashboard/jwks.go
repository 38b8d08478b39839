package dashboard

import "github.com/gofiber/fiber/v2"

// jwks publishes the receipt keys (RFC 7517 JWK Set), every version still
// valid for verification; anyone may fetch it.
func (d *Dashboard) jwks(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "application/jwk-set+json")
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return c.Send(d.receipts.JWKSJSON())
}
