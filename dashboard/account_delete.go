package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// accountDelete deletes the account (owners only; the form repeats its
// slug) and sends the person to the page that says it is done. A person
// who belonged to no other account was erased with it: their session ends
// here too.
func (d *Dashboard) accountDelete(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	ctx, cancel := longContext(c) // every room or address of theirs
	defer cancel()
	res, err := d.rooms.DeleteAccount(ctx, v.user.ID, slug, c.FormValue("confirm"))
	if err != nil {
		code := app.ErrorCodeOf(err)
		if code != app.ErrInvalid {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.accountPage(c, v, slug, "", accountData{DeleteError: d.say(c, v, err)})
	}
	if res.ActorErased {
		d.clearCookie(c, sessionCookie)
	}
	return c.Redirect("/account-deleted", fiber.StatusSeeOther)
}
