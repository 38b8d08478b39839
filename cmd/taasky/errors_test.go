package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/app"
)

// TestHTTPStatus: every app error code has its status.
func TestHTTPStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[app.ErrorCode]int{
		app.ErrInvalid:      400,
		app.ErrNotFound:     404,
		app.ErrConflict:     409,
		app.ErrUnauthorized: 401,
		app.ErrInternal:     500,
		"":                  500,
	} {
		if got := httpStatus(code); got != want {
			t.Errorf("httpStatus(%q) = %d, want %d", code, got, want)
		}
	}
}

// TestErrorHandlerLogsNoToken: a request that fails inside Taasky, or
// while the database does not answer, is logged with its route, the ids
// filled in and the tokens not: the path of a one-tap link, a seat or an
// unsubscribe link is a working capability.
func TestErrorHandlerLogsNoToken(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	a := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))})
	broken := errors.New("something broke")
	gone := fmt.Errorf("read: %w", io.ErrUnexpectedEOF)
	a.Get("/c/:token", func(*fiber.Ctx) error { return broken })
	a.Post("/unsubscribe/:token", func(*fiber.Ctx) error { return gone })
	a.Get("/rooms/:id", func(*fiber.Ctx) error { return broken })
	const secret = "ot_S3cretS3cretS3cretS3cretS3cretS3cretS3cret"
	for _, r := range []struct{ method, path string }{{"GET", "/c/" + secret}, {"POST", "/unsubscribe/" + secret}, {"GET", "/rooms/42"}} {
		resp, err := a.Test(httptest.NewRequest(r.method, r.path+"?k="+secret, nil))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	out := logs.String()
	if strings.Contains(out, secret) {
		t.Errorf("the log holds the token:\n%s", out)
	}
	for _, want := range []string{`"path":"/c/:token"`, `"path":"/unsubscribe/:token"`, `"path":"/rooms/42"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log does not say %s:\n%s", want, out)
		}
	}
}

// TestErrorHandlerLockConflict: a request PostgreSQL failed with a
// deadlock or a serialization failure (its transaction rolled back whole)
// is answered as while the database does not answer: 503, Retry-After and
// the retry message, not 500.
func TestErrorHandlerLockConflict(t *testing.T) {
	t.Parallel()
	a := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	a.Post("/c/:token", func(*fiber.Ctx) error { return fmt.Errorf("decide: %w", &pgconn.PgError{Code: "40P01"}) })
	resp, err := a.Test(httptest.NewRequest("POST", "/c/x", nil))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "5" || string(body) != app.RetryMessage {
		t.Errorf("a deadlock: %d, Retry-After %q, %q; want 503, 5 and the retry message", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

// TestLockConflictLoggedAsError: a deadlock is answered as a moment's
// unavailability, yet it is no database away but a lock order of
// Taasky's to fix: it is logged at the error level, naming it, as the MCP
// tools log theirs, not as a warning that the database did not answer.
func TestLockConflictLoggedAsError(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	a := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.NewJSONHandler(&logs, nil)))})
	a.Post("/c/:token", func(*fiber.Ctx) error {
		return fmt.Errorf("decide: %w", &pgconn.PgError{Code: "40P01", Message: "deadlock detected"})
	})
	resp, err := a.Test(httptest.NewRequest("POST", "/c/x", nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if out := logs.String(); resp.StatusCode != 503 || !strings.Contains(out, `"level":"ERROR"`) || !strings.Contains(out, "lock conflict") ||
		strings.Contains(out, "did not answer") {
		t.Errorf("a deadlock: %d, logged %s; want 503 and an error naming the lock conflict", resp.StatusCode, out)
	}
}

// TestRefusalQuotesNoRequest: a request whose first line fasthttp cannot
// parse (a request line with an empty path, "GET  HTTP/1.1", as a client
// joining an empty path writes; one with no method) is refused 400 in
// words that quote none of its bytes. withoutRequest cut only the quote
// after "Buffer size=": for these two, fasthttp quoted the whole request
// inside its own message too, bearer and cookies included (review26a).
func TestRefusalQuotesNoRequest(t *testing.T) {
	t.Parallel()
	a := newProbeApp(deps{log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &health{}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Listener(ln) }()
	defer func() { _ = a.ShutdownWithTimeout(5 * time.Second) }()
	const key, cookie = "tsk_S3cretS3cretS3cret", "S3cretCookieS3cret"
	secrets := "Host: x\r\nAuthorization: Bearer " + key + "\r\nCookie: __Host-s=" + cookie + "\r\n\r\n"
	for _, c := range []struct{ line, want string }{
		{"GET  HTTP/1.1", "requestURI cannot be empty"},
		{" /mcp/demo-a HTTP/1.1", "cannot find http request method"},
		{"POST /mcp/demo-a HTTP/1.1\r\nContent-Length: twelve", "cannot parse Content-Length"},
	} {
		resp, body := rawRequest(t, ln.Addr().String(), []byte(c.line+"\r\n"+secrets))
		if resp.StatusCode != 400 || strings.Contains(body, key) || strings.Contains(body, cookie) || strings.Contains(body, "Authorization") ||
			!strings.Contains(body, c.want) {
			t.Errorf("%q: %d %q, want 400 naming %q and quoting nothing", c.line, resp.StatusCode, body, c.want)
		}
	}
}
