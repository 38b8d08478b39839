package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// invitationSend invites an address to join the account with a role; a
// River job mails the link.
func (d *Dashboard) invitationSend(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug, email := c.Params("slug"), c.FormValue("email")
	role, err := app.ParseRole(c.FormValue("role"))
	if err == nil {
		_, err = d.accounts.Invite(c.UserContext(), v.user.ID, slug, email, role)
	}
	if err != nil {
		return d.membersRefused(c, v, slug, err, membersData{Email: email, Role: c.FormValue("role")})
	}
	return c.Redirect("/accounts/"+slug+"/members?done=invited", fiber.StatusSeeOther)
}
