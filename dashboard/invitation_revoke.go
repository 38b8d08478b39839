package dashboard

import "github.com/gofiber/fiber/v2"

// invitationRevoke makes a pending invitation's link stop working.
func (d *Dashboard) invitationRevoke(c *fiber.Ctx) error {
	return d.invitationAct(c, d.accounts.RevokeInvitation, "revoked")
}
