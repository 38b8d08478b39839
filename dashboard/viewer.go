package dashboard

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
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
	d.words(c, v) // the request speaks the viewer's language from here on, its error page too
	return v, nil
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
