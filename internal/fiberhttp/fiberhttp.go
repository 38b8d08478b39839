// Package fiberhttp serves a net/http handler from Fiber, as Fiber's
// adaptor does, but with a request context that is safe to derive from.
//
// The adaptor gives the handler fasthttp's pooled RequestCtx as its
// context. A context derived from it (context.WithTimeout, say, as OIDC and
// MCP code does) starts a goroutine that reads RequestCtx.Done, which races
// with the server's shutdown writing the same field (fasthttp v1.51). The
// handler gets context.WithoutCancel of it instead: values (Fiber's locals)
// still read through, Done is nil, and nothing watches fasthttp's state.
package fiberhttp

import (
	"context"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
)

// Handler adapts h for Fiber.
func Handler(h http.Handler) fiber.Handler {
	return adaptor.HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithoutCancel(r.Context())))
	}))
}
