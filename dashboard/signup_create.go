package dashboard

import (
	"errors"
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
		return d.signupPage(c, v, signupData{Name: name, Slug: slug, Errors: d.sayEach(c, v, err)})
	}
	return c.Redirect("/accounts/"+acct.Slug+"/start", fiber.StatusSeeOther)
}

// sayEach says each of a refusal's faults (a form's fields that are all
// wrong at once), or the refusal when it has none.
func (d *Dashboard) sayEach(c *fiber.Ctx, v *viewer, err error) []string {
	e, ok := errors.AsType[*app.Error](err)
	if !ok || len(e.Faults) == 0 {
		return []string{d.say(c, v, err)}
	}
	out := make([]string, 0, len(e.Faults))
	for _, f := range e.Faults {
		out = append(out, d.say(c, v, &app.Error{Code: e.Code, Message: f.Message, Words: f.Words}))
	}
	return out
}
