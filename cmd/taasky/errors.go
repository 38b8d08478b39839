package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/mcpserver"
	"github.com/taasky/taasky/oauthserver"
)

// httpStatus maps app error codes to HTTP statuses, for the routes outside
// the dashboard (which maps them itself: dashboard's statusOf).
func httpStatus(code app.ErrorCode) int {
	switch code {
	case app.ErrInvalid:
		return fiber.StatusBadRequest
	case app.ErrNotFound:
		return fiber.StatusNotFound
	case app.ErrConflict:
		return fiber.StatusConflict
	case app.ErrUnauthorized:
		return fiber.StatusUnauthorized
	}
	return fiber.StatusInternalServerError
}

// errorHandler answers an error returned by a handler: Fiber's own errors
// (404 for an unknown route…, and what fasthttp refuses before any
// handler: refused) in the words and the form of the door the request
// came to, *app.Error with its code and message, anything else as
// "internal error", logged.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) {
			return refused(c, fe)
		}
		code := app.ErrorCodeOf(err)
		if code == app.ErrInternal && app.RetryLater(err) {
			// The database did not answer (a failover, a restart), or
			// rolled the request back to break a deadlock: a moment's
			// unavailability the caller may retry.
			level, why := app.RetryLogged(err)
			log.Log(c.UserContext(), level, "request failed: "+why, "method", c.Method(), "path", fiberhttp.LogPath(c), "err", err)
			c.Set(fiber.HeaderRetryAfter, "5")
			return c.Status(fiber.StatusServiceUnavailable).SendString(app.RetryMessage)
		}
		if code == app.ErrInternal {
			log.ErrorContext(c.UserContext(), "request failed", "method", c.Method(), "path", fiberhttp.LogPath(c), "err", err)
		}
		return c.Status(httpStatus(code)).SendString(app.ErrorMessageOf(err))
	}
}

// The limits of every request, which fasthttp enforces before any handler
// (Fiber's defaults, written out: the refusals name them).
const (
	// maxRequestBody is the largest body of any request (the MCP door's
	// own limit is below it: mcpserver.MaxBody).
	maxRequestBody = 4 << 20
	// maxRequestHead is the read buffer the request line and headers must
	// fit in.
	maxRequestHead = 4096
	// maxRequestRead is how long a request (its headers and body) may take
	// to arrive.
	maxRequestRead = 30 * time.Second
)

// refused answers fe, a refusal of Fiber's or fasthttp's, as the door of
// c's path answers its own: the MCP door and the OAuth endpoints and
// documents a client calls from a browser with their CORS headers (without
// them, a page reads a network error and nothing of the refusal), the MCP
// door's 413 in go-sdk's words for a body past its limit (as a body of
// 1 to 4 MiB is answered), the OAuth endpoints' as an OAuth error (a
// registration's naming its own limit, oauthserver.BodyRefusal). A body
// past maxRequestBody, a request line or headers past maxRequestHead, a
// request not read within maxRequestRead or that fasthttp cannot parse
// are refused before any route, so their words are said here (their path
// as fiberhttp.Listener read it, when fasthttp could not parse it).
func refused(c *fiber.Ctx, fe *fiber.Error) error {
	msg := fe.Message
	switch fe.Code {
	case fiber.StatusRequestEntityTooLarge:
		msg = fmt.Sprintf("the request body exceeds %d bytes", maxRequestBody)
	case fiber.StatusRequestURITooLong:
		msg = fmt.Sprintf("the request line exceeds %d bytes (a URL too long)", maxRequestHead)
	case fiber.StatusRequestHeaderFieldsTooLarge:
		msg = fmt.Sprintf("the request line and headers exceed %d bytes (a URL or a header too long, or too many headers)", maxRequestHead)
	case fiber.StatusRequestTimeout:
		msg = fmt.Sprintf("the request was not received whole within %d s", int(maxRequestRead.Seconds()))
	}
	mcp, oauth := mcpserver.DoorPath(c.Path()), oauthserver.ClientPath(c.Path())
	if mcp || oauth {
		c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
		c.Set(fiber.HeaderAccessControlExposeHeaders, fiberhttp.CORSExposeHeaders)
	}
	request := fe.Code == fiber.StatusRequestEntityTooLarge || fe.Code == fiber.StatusUnsupportedMediaType || fe.Code == fiber.StatusBadRequest
	switch {
	case mcp && fe.Code == fiber.StatusRequestEntityTooLarge:
		return c.Status(fe.Code).SendString(fmt.Sprintf("request body exceeds %d bytes\n", mcpserver.MaxBody))
	case mcp && request:
		return c.Status(fe.Code).JSON(fiber.Map{"error": msg})
	case oauth && request:
		c.Set(fiber.HeaderCacheControl, "no-store")
		code := "invalid_request"
		if own, words, ok := oauthserver.BodyRefusal(c.Path()); ok && fe.Code == fiber.StatusRequestEntityTooLarge {
			code, msg = own, words
		}
		return c.Status(fe.Code).JSON(fiber.Map{"error": code, "error_description": msg})
	}
	return c.Status(fe.Code).SendString(msg)
}
