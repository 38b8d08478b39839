package dashboard

import "github.com/gofiber/fiber/v2"

// memberRemove removes a member: their agents' keys and their sessions
// stop working at once; their open rooms go to the account's owners.
func (d *Dashboard) memberRemove(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	id, err := pathID(c, "user", "member")
	if err == nil && id == v.user.ID {
		return d.memberLeave(c)
	}
	if err == nil {
		err = d.accounts.RemoveMember(c.UserContext(), v.user.ID, slug, id)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	return c.Redirect("/accounts/"+slug+"/members?done=removed", fiber.StatusSeeOther)
}
