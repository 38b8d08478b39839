package dashboard

import (
	"bytes"
	"context"
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
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/locale"
)

//go:embed layout/*.html views/*.html
var templateFiles embed.FS

// views are the parsed templates, one set per view and language: the
// layout, the partials and the view's own file, which defines "content",
// with the functions of that language (funcsFor).
type views struct {
	byLang map[string]map[string]*template.Template
}

func loadViews() (*views, error) {
	names, err := fs.Glob(templateFiles, "views/*.html")
	if err != nil {
		return nil, err
	}
	v := &views{byLang: map[string]map[string]*template.Template{}}
	for _, l := range locale.Languages() {
		funcs := funcsFor(locale.NewPrinter(l.Tag))
		byName := map[string]*template.Template{}
		for _, n := range names {
			t, err := template.New("").Funcs(funcs).ParseFS(templateFiles, "layout/*.html", n)
			if err != nil {
				return nil, fmt.Errorf("dashboard: template %s: %w", n, err)
			}
			byName[strings.TrimSuffix(path.Base(n), ".html")] = t
		}
		v.byLang[l.Tag] = byName
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
	// LivePage: the page's own address when it answers a form (a refusal
	// shown at a POST-only path): the script shows it in the address bar,
	// so the live updates fetch it and a reload shows the page again
	// rather than sending the form twice.
	LivePage string
	Zone     string // the time zone times are shown in
	Loc      *time.Location
	// ZoneGuessed: a person without an account whose browser has not
	// told its zone yet; the page's script tells it once.
	ZoneGuessed bool
	// ZonePick: a person without an account may choose the zone the page
	// shows, with or without a script; the page's own address, to show
	// again in it ("": no picker).
	ZonePick string
	Now      time.Time
	BaseURL  string
	Data     any
}

// render writes view with status 200 (or the status already set).
func (d *Dashboard) render(c *fiber.Ctx, view, title string, v *viewer, data any) error {
	return d.renderPage(c, view, &page{Title: title, Data: data}, v)
}

func (d *Dashboard) renderPage(c *fiber.Ctx, view string, p *page, v *viewer) error {
	t, ok := d.views.byLang[d.words(c, v).Lang()][view]
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
	if p.Loc == nil {
		p.Loc = zoneOr(p.Zone, time.UTC)
	}
	// A page that refused what was sent says so in its title, the first
	// thing a screen reader reads of a new page (the error itself may
	// come after the room's heading and state). The error page's own
	// title says it already.
	if view != "error" && c.Response().StatusCode() >= fiber.StatusBadRequest && p.Title != "" {
		p.Title = d.words(c, v).T("a1117_title_refused", p.Title)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "base", p); err != nil {
		d.log.ErrorContext(c.UserContext(), "render", "view", view, "err", err)
		return c.Status(fiber.StatusInternalServerError).SendString("internal error")
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(buf.Bytes())
}

// showError renders the error page with a message safe to show.
func (d *Dashboard) showError(c *fiber.Ctx, status int, msg string) error {
	c.Status(status)
	return d.renderPage(c, "error", &page{Title: d.words(c, nil).T("error.title"), Data: msg}, nil)
}

// showErrorT renders the error page with the catalog's message key, in
// the request's language.
func (d *Dashboard) showErrorT(c *fiber.Ctx, status int, key locale.Key, args ...any) error {
	return d.showError(c, status, d.words(c, nil).T(key, args...))
}

// fail shows err: an *app.Error with its message and status; the database
// not answering (a failover, a restart) as 503 with Retry-After, a page
// that asks to try again; anything else as "internal error", logged.
func (d *Dashboard) fail(c *fiber.Ctx, err error) error {
	code := app.ErrorCodeOf(err)
	if code == app.ErrInternal {
		if unavailable(err) {
			level, why := app.RetryLogged(err)
			d.log.Log(c.UserContext(), level, "dashboard request: "+why, "method", c.Method(), "path", fiberhttp.LogPath(c), "err", err)
			c.Set(fiber.HeaderRetryAfter, retryAfter)
			return d.showError(c, fiber.StatusServiceUnavailable, d.words(c, nil).T("failover.retry"))
		}
		d.log.ErrorContext(c.UserContext(), "dashboard request failed", "method", c.Method(), "path", fiberhttp.LogPath(c), "err", err)
	}
	return d.showError(c, statusOf(code), d.say(c, nil, err))
}

// unavailable: the database did not answer, or not within the request's
// bound (pageTimeout), or rolled the request back to break a deadlock
// (app.RetryLater): the same request again may go through.
func unavailable(err error) bool {
	return app.RetryLater(err) || errors.Is(err, context.DeadlineExceeded)
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

// words is the language a request is answered in: the signed-in person's
// setting, else the locale their identity provider gave at sign-in, else
// the browser's Accept-Language (a person without an account: always
// that), English at worst. It is decided once per request.
func (d *Dashboard) words(c *fiber.Ctx, v *viewer) *locale.Printer {
	if w, ok := c.Locals(wordsKey{}).(*locale.Printer); ok {
		return w
	}
	prefs := []string{c.Get(fiber.HeaderAcceptLanguage)}
	if v != nil {
		prefs = append([]string{v.user.Language, v.user.OIDCLocale}, prefs...)
	}
	w := locale.NewPrinter(prefs...)
	c.Locals(wordsKey{}, w)
	return w
}

type wordsKey struct{}

// readerWords makes the page speak the language of the person it is for
// (lang: theirs as Taasky knows it, "" for none; then the browser's),
// whoever opens it: a link in a German mail opens a German page.
func (d *Dashboard) readerWords(c *fiber.Ctx, lang string) *locale.Printer {
	w := locale.NewPrinter(lang, c.Get(fiber.HeaderAcceptLanguage))
	c.Locals(wordsKey{}, w)
	return w
}
