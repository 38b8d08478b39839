package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// memberRole changes a member's role (owners only; never the last owner's).
func (d *Dashboard) memberRole(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	id, err := pathID(c, "user", "member")
	var role app.MemberRole
	if err == nil {
		role, err = app.ParseRole(c.FormValue("role"))
	}
	if err == nil {
		err = d.accounts.ChangeRole(c.UserContext(), v.user.ID, slug, id, role)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{})
	}
	return c.Redirect("/accounts/"+slug+"/members?done=role", fiber.StatusSeeOther)
}
