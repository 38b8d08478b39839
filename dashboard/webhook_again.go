package dashboard

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// webhookAgain sends a message once more (same webhook-id, same payload)
// and goes back to its endpoint's log.
func (d *Dashboard) webhookAgain(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if d.hooks == nil {
		return d.fail(c, errNoWebhooks)
	}
	slug := c.Params("slug")
	endpoint, err := d.hooks.SendWebhookAgain(c.UserContext(), v.user.ID, slug, c.Params("msg"))
	if err != nil {
		return d.fail(c, err)
	}
	return c.Redirect("/accounts/"+slug+"/webhooks/"+strconv.FormatInt(endpoint, 10)+"?done=again", fiber.StatusSeeOther)
}
