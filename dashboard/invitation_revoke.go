package dashboard

import "github.com/gofiber/fiber/v2"

// invitationRevoke makes a pending invitation's link stop working.
func (d *Dashboard) invitationRevoke(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	id, err := pathID(c, "id", "invitation")
	if err == nil {
		err = d.accounts.RevokeInvitation(c.UserContext(), v.user.ID, slug, id)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	return c.Redirect("/accounts/"+slug+"/members?done=revoked", fiber.StatusSeeOther)
}
