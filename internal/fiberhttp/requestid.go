package fiberhttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/ratelimit"
)

// HeaderRequestID names a request: a proxy's (nginx's $request_id,
// Envoy's x-request-id) when one of TRUSTED_PROXIES sends one, else
// Taasky's own, and it is answered with the request.
const HeaderRequestID = "X-Request-Id"

// requestIDKey is where RequestIDFrom keeps the id: a Fiber local (which the
// net/http handlers read through their request's context, Handler) and a
// value of the request's user context.
type requestIDKey struct{}

// maxRequestID bounds an id taken from the request; a longer one, or one
// with other characters, is replaced: it is written to every line logged
// about the request.
const maxRequestID = 64

// RequestIDFrom gives every request an id, answered in X-Request-Id and
// added by LogRequestID to each line logged with the request's context,
// so that the operator finds a failed request's line from the proxy's
// access log, or from what the client saw, and back. The id in the
// request's X-Request-Id is taken only from a peer in trusted (the
// proxies, TRUSTED_PROXIES), as X-Forwarded-For is: a client's own would
// name its lines as it likes (another request's id, one of Taasky's
// form), and an id would no longer lead to one request.
func RequestIDFrom(trusted []netip.Prefix) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := ""
		if peer, ok := netip.AddrFromSlice(c.Context().RemoteIP()); ok && ratelimit.Trusted(peer.Unmap(), trusted) {
			// A copy: Fiber's c.Get is the request's buffer, reused by
			// the connection's next request, and the id outlives this
			// one in the context (a line logged as a paced answer ends).
			id = strings.Clone(c.Get(HeaderRequestID))
		}
		if !validRequestID(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Locals(requestIDKey{}, id)
		c.SetUserContext(context.WithValue(c.UserContext(), requestIDKey{}, id))
		c.Set(HeaderRequestID, id)
		return c.Next()
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// RequestIDOf is the id of the request ctx belongs to ("" outside one).
func RequestIDOf(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// LogRequestID adds request_id to every record logged with a request's
// context (slog's *Context methods, Log).
func LogRequestID(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestIDOf(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
