package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// webhookRotate gives an endpoint a new secret and shows it, once; the
// old one keeps signing beside it for a day.
func (d *Dashboard) webhookRotate(c *fiber.Ctx) error {
	v, id, done := d.endpointRoute(c)
	if v == nil {
		return done
	}
	secret, err := d.hooks.RotateWebhookSecret(c.UserContext(), v.user.ID, c.Params("slug"), id)
	if err != nil {
		return d.webhookRefused(c, v, err, webhooksData{})
	}
	return d.webhooksPage(c, v, webhooksData{Secret: &shownSecret{Secret: secret, Rotated: true}})
}
