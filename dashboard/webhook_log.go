package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// webhookLogData is an endpoint's delivery log: its latest messages with
// every attempt.
type webhookLogData struct {
	M        app.Membership
	Endpoint app.WebhookEndpoint
	Messages []app.WebhookMessage
	Notice   string
}

// webhookLog shows an endpoint's delivery log, with "Send again".
func (d *Dashboard) webhookLog(c *fiber.Ctx) error {
	v, id, done := d.endpointRoute(c)
	if v == nil {
		return done
	}
	ctx, slug := c.UserContext(), c.Params("slug")
	e, ms, err := d.hooks.WebhookLog(ctx, v.user.ID, slug, id)
	if err != nil {
		return d.fail(c, err)
	}
	m, err := d.accounts.Membership(ctx, v.user.ID, slug)
	if err != nil {
		return d.fail(c, err)
	}
	data := webhookLogData{M: m, Endpoint: e, Messages: ms}
	if c.Query("done") == "again" {
		data.Notice = "Sent again with the same webhook-id; its attempt shows below once made."
	}
	return d.renderPage(c, "webhook_log", &page{Title: "Webhook deliveries to " + e.URL, Data: data}, v)
}
