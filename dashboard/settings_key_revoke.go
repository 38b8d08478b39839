package dashboard

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsKeyRevoke revokes a key of an agent the user manages, at once.
func (d *Dashboard) settingsKeyRevoke(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	agent, err := d.managedAgent(c, v, c.FormValue("account"), c.FormValue("agent"))
	if err != nil {
		return d.settingsRefused(c, v, err)
	}
	keys, err := d.accounts.ListAgentKeys(c.UserContext(), agent.AccountSlug, agent.ID)
	if err != nil {
		return d.settingsRefused(c, v, err)
	}
	keyID := c.Params("id")
	for _, k := range keys {
		if formatID(k.ID) == keyID {
			if err := d.accounts.RevokeAgentKey(app.AsActor(c.UserContext(), v.user.ID), agent.AccountSlug, k.ID); err != nil {
				return d.settingsRefused(c, v, err)
			}
			return c.Redirect("/settings?done=revoked", fiber.StatusSeeOther)
		}
	}
	return d.settingsRefused(c, v, refusal(app.ErrNotFound, "error.no_key", keyID, agent.Name))
}

func formatID(id int64) string { return strconv.FormatInt(id, 10) }
