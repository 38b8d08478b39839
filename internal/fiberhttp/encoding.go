package fiberhttp

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// IdentityOnly refuses a request whose body is sent with a content coding
// (Content-Encoding gzip, deflate, br…): 415, naming the header and its
// value, with "Accept-Encoding: identity" (RFC 7694). No client of
// Taasky's compresses what it sends, and Fiber's Ctx.Body decodes such a
// body whole into memory, with no bound on what it inflates to
// (fasthttp's BodyGunzip), once per call: a gzip body of 1 MB of zeros is
// 1 GB, and a body coded "gzip, gzip" multiplies that again. The MCP door
// reads Body before it knows the bearer (a refusal's JSON-RPC id), the
// person's pages to read their form: a stranger could make the process
// allocate gigabytes with one request. Run it before every route.
func IdentityOnly(c *fiber.Ctx) error {
	coding := ""
	c.Request().Header.VisitAll(func(k, v []byte) {
		if coding == "" && strings.EqualFold(string(k), fiber.HeaderContentEncoding) {
			if s := strings.TrimSpace(string(v)); s != "" && !strings.EqualFold(s, "identity") {
				coding = s
			}
		}
	})
	if coding == "" {
		return c.Next()
	}
	c.Set(fiber.HeaderAcceptEncoding, "identity")
	if len(coding) > 40 {
		coding = coding[:40] + "…"
	}
	return fiber.NewError(fiber.StatusUnsupportedMediaType,
		fmt.Sprintf("Content-Encoding %q is not accepted: send the request body uncompressed (no Content-Encoding header)", coding))
}
