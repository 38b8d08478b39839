package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// unsubscribeData is the page a List-Unsubscribe link opens.
type unsubscribeData struct {
	Token string
	Email string // after the POST: whose notices are off
	Done  bool
	// Person: the link came in a mail to a person who answered an
	// invitation in the browser; it stops the mails about that room.
	Person bool
}

// unsubscribeShow is what a List-Unsubscribe link opens in a browser: a
// button, and nothing changed (mail scanners open links too).
func (d *Dashboard) unsubscribeShow(c *fiber.Ctx) error {
	token := c.Params("token")
	if d.notify == nil {
		return d.showErrorT(c, fiber.StatusNotFound, "error.unsubscribe_sign_in")
	}
	person := d.notify.PersonUnsubscribeToken(token)
	if !person && !d.notify.UnsubscribeTokenValid(token) {
		return d.showErrorT(c, fiber.StatusNotFound, "error.unsubscribe_sign_in")
	}
	return d.render(c, "unsubscribe", d.words(c, nil).T("unsubscribe.heading"), nil, unsubscribeData{Token: token, Person: person})
}
