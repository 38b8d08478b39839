package dashboard

import (
	"context"

	"github.com/gofiber/fiber/v2"
)

// webhookDelete deletes an endpoint with its delivery log.
func (d *Dashboard) webhookDelete(c *fiber.Ctx) error {
	return d.webhookAct(c, "deleted", Webhooks.DeleteWebhook)
}

// webhookEnable turns back on an endpoint Taasky disabled.
func (d *Dashboard) webhookEnable(c *fiber.Ctx) error {
	return d.webhookAct(c, "enabled", Webhooks.EnableWebhook)
}

// webhookAct is the body of an endpoint's buttons that change it and go
// back to the list.
func (d *Dashboard) webhookAct(c *fiber.Ctx, notice string, act func(Webhooks, context.Context, int64, string, int64) error) error {
	v, id, done := d.endpointRoute(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	if err := act(d.hooks, c.UserContext(), v.user.ID, slug, id); err != nil {
		return d.webhookRefused(c, v, err, webhooksData{})
	}
	return c.Redirect("/accounts/"+slug+"/webhooks?done="+notice, fiber.StatusSeeOther)
}
