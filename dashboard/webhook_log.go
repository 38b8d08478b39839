package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// webhookLogData is an endpoint's delivery log: its latest messages with
// every attempt.
type webhookLogData struct {
	M        app.Membership
	Endpoint app.WebhookEndpoint
	Messages []app.WebhookMessage
	Notice   string
}

var webhookLogNotices = map[string]locale.Key{"again": "webhook_log.sent_again"}

// webhookStates are the words of a webhook message's status.
var webhookStates = map[string]locale.Key{"queued": "webhook_log.state.queued", "sent": "webhook_log.state.sent",
	"retrying": "webhook_log.state.retrying", "failed": "webhook_log.state.failed"}

// hookStatus is a message's status in words; one newer than the
// catalog is shown as its name.
func hookStatus(w *locale.Printer, status string) string {
	if k, ok := webhookStates[status]; ok {
		return w.T(k)
	}
	return status
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
	data := webhookLogData{M: m, Endpoint: e, Messages: ms, Notice: d.doneNotice(c, v, webhookLogNotices)}
	return d.renderPage(c, "webhook_log", &page{Title: d.words(c, v).T("webhook_log.title", e.URL), Data: data}, v)
}
