package mcpserver

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
)

// Authenticator finds the agent an API key belongs to (app.Accounts).
type Authenticator interface {
	AuthenticateAgentKey(ctx context.Context, key string) (app.Agent, error)
}

// Mount serves the tools at /mcp/:account on r. A request needs
// "Authorization: Bearer <agent key>": without one, or with an unknown or
// revoked key, it gets 401 with a WWW-Authenticate header; a key of another
// account gets 404, as an account the key cannot see does not exist for it.
func (s *Server) Mount(r fiber.Router, auth Authenticator) {
	mcpHandler := fiberhttp.Handler(s.handler)
	r.All("/mcp/:account", func(c *fiber.Ctx) error {
		const realm = `Bearer realm="taasky"`
		header := c.Get(fiber.HeaderAuthorization)
		key, ok := strings.CutPrefix(header, "Bearer ")
		if !ok || strings.TrimSpace(key) == "" {
			c.Set(fiber.HeaderWWWAuthenticate, realm)
			return c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": "Authorization: Bearer <agent key> is required"})
		}
		agent, err := auth.AuthenticateAgentKey(c.UserContext(), strings.TrimSpace(key))
		if err != nil {
			if app.ErrorCodeOf(err) == app.ErrInternal {
				return err
			}
			c.Set(fiber.HeaderWWWAuthenticate, realm+`, error="invalid_token"`)
			return c.Status(fiber.StatusUnauthorized).JSON(fiber.Map{"error": "the agent key is not valid (unknown or revoked)"})
		}
		if c.Params("account") != agent.AccountSlug {
			return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": "no such account"})
		}
		c.Locals(agentKey{}, agent)
		return mcpHandler(c)
	})
}
