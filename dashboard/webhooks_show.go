package dashboard

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// webhooksData is an account's webhooks page: its endpoints, the form to
// add one (as typed, after a refusal), and a secret shown once.
type webhooksData struct {
	M         app.Membership
	Endpoints []app.WebhookEndpoint
	Events    []app.WebhookEvent // every event, for the form
	URL       string             // the form's URL, as typed
	Chosen    []string           // the form's events, as ticked
	Secret    *shownSecret
	Error     string
	URLWrong  bool // Error is about the URL: the field is marked and focused
	Notice    string
}

// shownSecret is a signing secret, on the one page that shows it.
type shownSecret struct {
	URL, Secret string
	Rotated     bool
}

var webhookNotices = map[string]locale.Key{
	"deleted": "webhooks.done.deleted",
	"enabled": "webhooks.done.enabled",
}

// webhooksShow shows the account's webhook endpoints (owners and admins).
func (d *Dashboard) webhooksShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.webhooksPage(c, v, webhooksData{Notice: d.doneNotice(c, v, webhookNotices)})
}

func (d *Dashboard) webhooksPage(c *fiber.Ctx, v *viewer, data webhooksData) error {
	if d.hooks == nil {
		return d.fail(c, errNoWebhooks)
	}
	ctx := c.UserContext()
	slug := c.Params("slug")
	m, err := d.accounts.Membership(ctx, v.user.ID, slug)
	if err != nil {
		return d.fail(c, err)
	}
	if data.Endpoints, err = d.hooks.ListWebhooks(ctx, v.user.ID, slug); err != nil {
		return d.fail(c, err)
	}
	data.M, data.Events = m, app.WebhookEvents
	if data.Chosen == nil && data.URL == "" {
		data.Chosen = []string{string(app.HookRoomAgreed), string(app.HookRoomClosed)}
	}
	return d.renderPage(c, "webhooks", &page{Title: d.words(c, v).T("webhooks.title", m.AccountName), Data: data}, v)
}

// webhookRefused shows the webhooks page with a refusal's message, or
// fails the request when it was not the person's mistake.
func (d *Dashboard) webhookRefused(c *fiber.Ctx, v *viewer, err error, data webhooksData) error {
	code := app.ErrorCodeOf(err)
	if code == app.ErrInternal || code == app.ErrUnauthorized || d.hooks == nil {
		return d.fail(c, err)
	}
	c.Status(statusOf(code))
	data.Error = d.say(c, v, err)
	data.URLWrong = refusedField(err) == "url"
	return d.webhooksPage(c, v, data)
}

// errNoWebhooks answers every webhook route of a server without them.
var errNoWebhooks = refusal(app.ErrNotFound, "error.webhooks_off")

// endpointRoute is how a route of one endpoint starts: the signed-in
// viewer (nil: done is the answer already given) and the endpoint's id.
func (d *Dashboard) endpointRoute(c *fiber.Ctx) (v *viewer, id int64, done error) {
	if v, done = d.requireViewer(c); v == nil {
		return nil, 0, done
	}
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	switch {
	case d.hooks == nil:
		return nil, 0, d.fail(c, errNoWebhooks)
	case err != nil || id <= 0:
		return nil, 0, d.fail(c, refusal(app.ErrNotFound, "error.no_endpoint_named", c.Params("id")))
	}
	return v, id, nil
}
