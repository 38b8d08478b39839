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
	if err := d.unsubscribeReader(c, token); err != nil {
		return d.fail(c, err)
	}
	person := d.notify.PersonUnsubscribeToken(token)
	if !person && !d.notify.UnsubscribeTokenValid(token) {
		return d.showErrorT(c, fiber.StatusNotFound, "error.unsubscribe_sign_in")
	}
	return d.render(c, "unsubscribe", d.words(c, nil).T("unsubscribe.heading"), nil, unsubscribeData{Token: token, Person: person})
}

// unsubscribeReader has the page of a user's List-Unsubscribe link speak
// that user's language (the link is theirs, like a one-tap link), else
// the browser's.
func (d *Dashboard) unsubscribeReader(c *fiber.Ctx, token string) error {
	lang, err := d.notify.UnsubscribeLanguage(c.UserContext(), token)
	if err != nil {
		return err
	}
	d.readerWords(c, lang)
	return nil
}
