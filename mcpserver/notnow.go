package mcpserver

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// notNow answers a request Taasky does not take now but will a little
// later: past the agent's rate limit or the account's calls at once
// (429), or when its key could not be checked because the database did
// not answer (503). The answer always carries Retry-After: secs.
//
// A tools/call whose JSON-RPC request can be read gets that request's
// answer instead, HTTP 200 (MCP answers a request with its JSON-RPC
// response): a tool error saying toModel, with _meta {"retry_after": secs}
// (retryLater). go-sdk's client (v1.8.0,
// streamableClientConn.checkResponse) reads no body of a 429, 500, 502,
// 503 or 504: the model behind it was told "Too Many Requests" or "Service
// Unavailable" and nothing else, whatever the body said; MCP has clients
// give tool errors to the model. Every other request (initialize,
// tools/list, a notification, a GET, a body that is not one call) keeps
// the status and {"error": msg}, as an HTTP client expects them.
//
// A tool call so answered is counted as not_now for its tool
// (taasky_mcp_calls_total), by the server the request reached
// (notNowServer): a proxy logs it as a 200.
func notNow(c *fiber.Ctx, status, secs int, msg, toModel string) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
	if c.Method() == fiber.MethodPost && len(c.Body()) <= MaxBody {
		if id, tool, _, ok := toolCallOf(c.Body()); ok {
			if s, _ := c.Locals(notNowServer{}).(*Server); s != nil {
				s.metrics.notNow(tool, s.names)
			}
			return c.JSON(fiber.Map{"jsonrpc": "2.0", "id": id, "result": retryLater(toModel, secs)})
		}
	}
	return c.Status(status).JSON(fiber.Map{"error": msg})
}

// notNowServer is the Fiber local holding the *Server a request reached,
// whose metrics count it if notNow answers it.
type notNowServer struct{}

// retryLater is a tool error saying msg (which says when to call again,
// for the model), with the seconds in _meta, {"retry_after": secs}, for a
// program: not in the text, which stays the one line an agent compares
// (app.RetryMessage), nor in structured content, which a client validates
// against the tool's output schema.
func retryLater(msg string, secs int) *mcp.CallToolResult {
	res := errorResult(msg)
	res.Meta = mcp.Meta{"retry_after": secs}
	return res
}
