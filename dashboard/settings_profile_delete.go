package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsProfileDelete erases the signed-in person, who belongs to no
// account (the form repeats their address), ends their session and says
// it is done. A refusal (a wrong address, still a member) is shown in the
// section, and changes nothing.
func (d *Dashboard) settingsProfileDelete(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	ctx, cancel := longContext(c) // every room or address of theirs
	defer cancel()
	if err := d.accounts.DeleteProfile(ctx, v.user.ID, c.FormValue("confirm")); err != nil {
		code := app.ErrorCodeOf(err)
		if code == app.ErrInternal {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.settingsPage(c, v, settingsData{ProfileError: d.say(c, v, err)})
	}
	d.clearCookie(c, sessionCookie)
	return c.Redirect("/profile-deleted", fiber.StatusSeeOther)
}

// profileDeleted says the person was erased. Anyone may see it: it names
// nobody.
func (d *Dashboard) profileDeleted(c *fiber.Ctx) error {
	w := d.words(c, nil)
	return d.render(c, "signed_out", w.T("profile_delete.done_title"), nil, signedOutData{Deleted: true})
}
