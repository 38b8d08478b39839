package dashboard

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// TestStatusOf: every app error code has its status; a signed-in person
// refused is forbidden, not asked to identify themselves.
func TestStatusOf(t *testing.T) {
	t.Parallel()
	for code, want := range map[app.ErrorCode]int{
		app.ErrInvalid:      400,
		app.ErrNotFound:     404,
		app.ErrConflict:     409,
		app.ErrUnauthorized: 403,
		app.ErrInternal:     500,
		"":                  500,
	} {
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%q) = %d, want %d", code, got, want)
		}
	}
}

// TestUnavailable: while the database does not answer (a failover), a page
// answers 503 with Retry-After and words to try again, and a live stream
// answers an empty stream that asks the browser to come back (an
// EventSource refused with any status but 200 never retries); a refusal
// of the person's request stays what it is. trust's
// TestLivePagesAcrossNodes shows both against a primary killed for real.
func TestUnavailable(t *testing.T) {
	b := setup(t)
	gone := fmt.Errorf("read the room: %w", io.ErrUnexpectedEOF)
	a := fiber.New()
	a.Get("/page", func(c *fiber.Ctx) error { return b.dash.fail(c, gone) })
	a.Get("/events", func(c *fiber.Ctx) error { return b.dash.failStream(c, gone) })
	a.Get("/missing/events", func(c *fiber.Ctx) error { return b.dash.failStream(c, app.Errorf(app.ErrNotFound, "room not found")) })
	// A transaction PostgreSQL rolled back to break a deadlock: the same
	// request again goes through.
	a.Get("/deadlock", func(c *fiber.Ctx) error {
		return b.dash.fail(c, fmt.Errorf("decide: %w", &pgconn.PgError{Code: "40P01", Message: "deadlock detected"}))
	})
	for _, tc := range []struct {
		path, status, retryAfter, contentType, body string
	}{
		{"/page", "503", "5", "text/html; charset=utf-8", locale.English().T("failover.retry")},
		{"/events", "200", "", "text/event-stream", "retry: 5000\n\n"},
		{"/missing/events", "404", "", "text/html; charset=utf-8", "room not found"},
		{"/deadlock", "503", "5", "text/html; charset=utf-8", locale.English().T("failover.retry")},
	} {
		resp, err := a.Test(httptest.NewRequest(http.MethodGet, tc.path, nil))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := fmt.Sprint(resp.StatusCode); got != tc.status || resp.Header.Get("Retry-After") != tc.retryAfter ||
			resp.Header.Get("Content-Type") != tc.contentType || !strings.Contains(string(body), tc.body) {
			t.Errorf("GET %s: %s, Retry-After %q, %s, want %s, %q, %s and %q:\n%s", tc.path, got, resp.Header.Get("Retry-After"),
				resp.Header.Get("Content-Type"), tc.status, tc.retryAfter, tc.contentType, tc.body, body)
		}
	}
}
