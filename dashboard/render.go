package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

//go:embed layout/*.html views/*.html
var templateFiles embed.FS

// views are the parsed templates, one set per view: the layout, the
// partials and the view's own file, which defines "content".
type views struct{ byName map[string]*template.Template }

func loadViews() (*views, error) {
	names, err := fs.Glob(templateFiles, "views/*.html")
	if err != nil {
		return nil, err
	}
	v := &views{byName: map[string]*template.Template{}}
	for _, n := range names {
		t, err := template.New("").Funcs(templateFuncs).ParseFS(templateFiles, "layout/*.html", n)
		if err != nil {
			return nil, fmt.Errorf("dashboard: template %s: %w", n, err)
		}
		v.byName[strings.TrimSuffix(path.Base(n), ".html")] = t
	}
	return v, nil
}

// page is what every view is given.
type page struct {
	Title   string
	User    *app.User // nil: nobody is signed in
	Waiting int       // rooms waiting for a human of the user's accounts
	CSRF    string
	Live    string // the event stream that updates this page, if any
	Zone    string // the time zone times are shown in
	Now     time.Time
	BaseURL string
	Data    any
}

// render writes view with status 200 (or the status already set).
func (d *Dashboard) render(c *fiber.Ctx, view, title string, v *viewer, data any) error {
	return d.renderPage(c, view, &page{Title: title, Data: data}, v)
}

func (d *Dashboard) renderPage(c *fiber.Ctx, view string, p *page, v *viewer) error {
	t, ok := d.views.byName[view]
	if !ok {
		return fmt.Errorf("dashboard: no view %q", view)
	}
	p.CSRF, p.Now, p.BaseURL = csrfToken(c), d.now(), d.baseURL
	if v != nil {
		p.User, p.Waiting = &v.user, v.waiting
		if p.Zone == "" {
			p.Zone = v.user.TimeZone
		}
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "base", p); err != nil {
		d.log.Error("render", "view", view, "err", err)
		return c.Status(fiber.StatusInternalServerError).SendString("internal error")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(buf.Bytes())
}

// showError renders the error page with a message safe to show.
func (d *Dashboard) showError(c *fiber.Ctx, status int, msg string) error {
	c.Status(status)
	return d.renderPage(c, "error", &page{Title: "Something is wrong", Data: msg}, nil)
}

// fail shows err: an *app.Error with its message and status; the database
// not answering (a failover, a restart) as 503 with Retry-After, a page
// that asks to try again; anything else as "internal error", logged.
func (d *Dashboard) fail(c *fiber.Ctx, err error) error {
	code := app.ErrorCodeOf(err)
	if code == app.ErrInternal {
		if errors.Is(err, c.UserContext().Err()) && c.UserContext().Err() != nil {
			return nil
		}
		if app.Unavailable(err) {
			d.log.Warn("dashboard request: the database did not answer", "method", c.Method(), "path", c.Path(), "err", err)
			c.Set(fiber.HeaderRetryAfter, retryAfter)
			return d.showError(c, fiber.StatusServiceUnavailable, words.T("failover.retry"))
		}
		d.log.Error("dashboard request failed", "method", c.Method(), "path", c.Path(), "err", err)
	}
	return d.showError(c, statusOf(code), app.ErrorMessageOf(err))
}

// retryAfter is the seconds a page or a live stream asks the browser to
// wait while the database does not answer: a failover takes a few.
const retryAfter = "5"

// statusOf maps app error codes to the dashboard's HTTP statuses. A
// signed-in person who may not do something is forbidden (403), not
// unidentified (401).
func statusOf(code app.ErrorCode) int {
	switch code {
	case app.ErrInvalid:
		return fiber.StatusBadRequest
	case app.ErrNotFound:
		return fiber.StatusNotFound
	case app.ErrConflict:
		return fiber.StatusConflict
	case app.ErrUnauthorized:
		return fiber.StatusForbidden
	}
	return fiber.StatusInternalServerError
}
