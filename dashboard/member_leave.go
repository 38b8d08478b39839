package dashboard

import "github.com/gofiber/fiber/v2"

// memberLeave takes the viewer out of the account, as a removal does: it
// ends every session of theirs, this one too.
func (d *Dashboard) memberLeave(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	if err := d.accounts.Leave(c.UserContext(), v.user.ID, slug); err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	d.clearCookie(c, sessionCookie)
	return c.Redirect("/signed-out", fiber.StatusSeeOther)
}
