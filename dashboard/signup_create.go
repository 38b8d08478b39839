package dashboard

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// signupCreate creates the account, owned by the signed-in person, and
// shows its first steps. An empty slug is derived from the name.
func (d *Dashboard) signupCreate(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	name, slug := c.FormValue("name"), strings.TrimSpace(c.FormValue("slug"))
	if slug == "" {
		slug = app.SuggestSlug(name)
	}
	acct, err := d.accounts.SignUp(c.UserContext(), v.user.ID, name, slug)
	if err != nil {
		code := app.ErrorCodeOf(err)
		if code == app.ErrInternal {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.signupPage(c, v, signupData{Name: name, Slug: slug, Error: d.say(c, v, err)})
	}
	return c.Redirect("/accounts/"+acct.Slug+"/start", fiber.StatusSeeOther)
}
