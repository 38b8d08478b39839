package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// joinAccept makes the signed-in person a member, if the invitation is
// for their (verified) address; otherwise it says why and the link keeps
// working. Join pressed twice (or a POST the browser sent again) is
// answered as the first was: a refusal that finds the person a member of
// the account is their account's start page, not "this link was already
// used" under a Join button.
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
		if code == app.ErrConflict {
			ms, merr := d.accounts.Memberships(c.UserContext(), v.user.ID)
			if merr != nil {
				return d.fail(c, merr)
			}
			for _, m := range ms {
				if m.AccountID == inv.AccountID {
					return c.Redirect("/accounts/"+m.AccountSlug+"/start", fiber.StatusSeeOther)
				}
			}
		}
		c.Status(statusOf(code))
		return d.joinPage(c, v, joinData{Inv: inv, Token: token, Error: d.say(c, v, err), Refused: inv.RefusalFor(v.user) != nil})
	}
	return c.Redirect("/accounts/"+m.AccountSlug+"/start", fiber.StatusSeeOther)
}
