package dashboard

import (
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// viewer is the signed-in user of a request.
type viewer struct {
	user    app.User
	waiting int
}

// currentViewer returns the signed-in user, nil if nobody is (or their
// session names a user that no longer exists).
func (d *Dashboard) currentViewer(c *fiber.Ctx) (*viewer, error) {
	u, ok, err := d.sessionUser(c)
	if !ok {
		return nil, err
	}
	n, err := d.rooms.CountWaiting(c.UserContext(), u.ID)
	if err != nil {
		return nil, err
	}
	v := &viewer{user: u, waiting: n}
	w := d.words(c, v) // the request speaks the viewer's language from here on, its error page too
	d.notePageLanguage(c, &v.user, w)
	return v, nil
}

// notePageLanguage keeps w, the language this request speaks to u, on
// their row while they have chosen none and their browser says what it
// reads (User.PageLanguage): the mails written for them later, by a
// worker with no browser to ask, speak it too. Only a change is written,
// so a page costs no statement of its own while it stays the same; a
// failure is logged and the page goes on (the next one tries again).
func (d *Dashboard) notePageLanguage(c *fiber.Ctx, u *app.User, w *locale.Printer) {
	if u.Language != "" || u.PageLanguage == w.Lang() || c.Get(fiber.HeaderAcceptLanguage) == "" {
		return
	}
	if err := d.accounts.NotePageLanguage(c.UserContext(), u.ID, w.Lang()); err != nil {
		d.log.WarnContext(c.UserContext(), "note page language", "user", u.ID, "err", err)
		return
	}
	u.PageLanguage = w.Lang()
}

// signedInReader lets a page that anyone may open (an invitation, /verify,
// a join link…) speak to a signed-in person as their own pages do: in
// their language (words) and time zone (personZone, readerZone), not only
// their browser's. The person is kept in the request's locals, so a
// handler that asks for the viewer reads their row once. Nobody signed in,
// or their row could not be read: the page is a stranger's, as before.
func (d *Dashboard) signedInReader(c *fiber.Ctx) error {
	if u, ok, err := d.sessionUser(c); ok && err == nil {
		c.Locals(readerKey{}, &u)
		d.notePageLanguage(c, &u, d.words(c, &viewer{user: u}))
	}
	return c.Next()
}

type readerKey struct{}

// signedIn is the person signedInReader found signed in, nil if none.
func (d *Dashboard) signedIn(c *fiber.Ctx) *app.User {
	u, _ := c.Locals(readerKey{}).(*app.User)
	return u
}

// readerZone is the zone a page anyone may open writes its moments in:
// the signed-in person's own, else UTC.
func (d *Dashboard) readerZone(c *fiber.Ctx) *time.Location {
	if u := d.signedIn(c); u != nil {
		if loc, err := loadZone(u.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// requireViewer returns the signed-in user, or sends the browser to sign
// in first (and come back here): v is nil then, and done is what to return.
func (d *Dashboard) requireViewer(c *fiber.Ctx) (v *viewer, done error) {
	v, err := d.currentViewer(c)
	if err != nil {
		return nil, d.fail(c, err)
	}
	if v == nil {
		back := c.OriginalURL()
		if c.Method() != fiber.MethodGet {
			back = c.Get(fiber.HeaderReferer)
			if u, err := url.Parse(back); err == nil {
				back = u.RequestURI()
			}
		}
		return nil, c.Redirect("/login?next="+url.QueryEscape(safeNext(back)), fiber.StatusSeeOther)
	}
	return v, nil
}
