package main

import (
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
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
// (404 for an unknown route…) as they are, *app.Error with its code and
// message, anything else as "internal error", logged.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) {
			return c.Status(fe.Code).SendString(fe.Message)
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
