package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// webhookCreate adds an endpoint and shows its secret, once.
func (d *Dashboard) webhookCreate(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	var events []string
	for _, e := range c.Request().PostArgs().PeekMulti("events") {
		events = append(events, string(e))
	}
	url := c.FormValue("url")
	if d.hooks == nil {
		return d.fail(c, errNoWebhooks)
	}
	e, secret, err := d.hooks.CreateWebhook(c.UserContext(), v.user.ID, c.Params("slug"), url, events)
	if err != nil {
		return d.webhookRefused(c, v, err, webhooksData{URL: url, Chosen: append([]string{}, events...)})
	}
	return d.webhooksPage(c, v, webhooksData{Secret: &shownSecret{URL: e.URL, Secret: secret}})
}
