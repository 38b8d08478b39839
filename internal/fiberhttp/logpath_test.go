package fiberhttp

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestLogPath: ids and slugs are filled in; tokens, codes, wildcards and
// any parameter not known to be an id keep their placeholder.
func TestLogPath(t *testing.T) {
	t.Parallel()
	a := fiber.New()
	var got string
	h := func(c *fiber.Ctx) error { got = LogPath(c); return nil }
	a.Get("/c/:token", h)
	a.Get("/accounts/:slug/members/:user/role", h)
	a.Get("/p/:token/events", h)
	a.Get("/admin/jobs/*", h)
	a.Get("/dev/outbox/:id/attachment/:n", h)
	a.Get("/opt/:id?", h)
	for path, want := range map[string]string{
		"/c/ot_secret?x=ot_secret":       "/c/:token",
		"/accounts/alpha/members/7/role": "/accounts/alpha/members/7/role",
		"/p/pt_secret/events":            "/p/:token/events",
		"/admin/jobs/api/jobs/secret":    "/admin/jobs/*",
		"/dev/outbox/3/attachment/0":     "/dev/outbox/3/attachment/:n",
		"/opt/9":                         "/opt/9",
	} {
		got = ""
		if _, err := a.Test(httptest.NewRequest("GET", path, nil)); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("LogPath(%s) = %q, want %q", path, got, want)
		}
	}
}
