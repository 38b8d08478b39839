package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// joinAccept makes the signed-in person a member, if the invitation is
// for their (verified) address; otherwise it says why and the link keeps
// working.
func (d *Dashboard) joinAccept(c *fiber.Ctx) error {
	token := c.Params("token")
	inv, err := d.accounts.InvitationByToken(c.UserContext(), token)
	if err != nil {
		return d.fail(c, err)
	}
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	m, err := d.accounts.AcceptInvitation(c.UserContext(), v.user.ID, token)
	if err != nil {
		code := app.ErrorCodeOf(err)
		if code == app.ErrInternal {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.joinPage(c, v, joinData{Inv: inv, Token: token, Error: d.say(c, v, err)})
	}
	return c.Redirect("/accounts/"+m.AccountSlug+"/start", fiber.StatusSeeOther)
}
