package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// webhookRotate gives an endpoint a new secret and shows it, once; the
// old one keeps signing beside it for a day.
func (d *Dashboard) webhookRotate(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	id, err := d.endpointID(c)
	if err != nil {
		return d.fail(c, err)
	}
	secret, err := d.hooks.RotateWebhookSecret(c.UserContext(), v.user.ID, c.Params("slug"), id)
	if err != nil {
		return d.webhookRefused(c, v, err, webhooksData{})
	}
	return d.webhooksPage(c, v, webhooksData{Secret: &shownSecret{Secret: secret, Rotated: true}})
}
