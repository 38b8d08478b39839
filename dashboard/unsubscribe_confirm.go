package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// unsubscribeConfirm turns off the email notices of the user the link
// names (or, from a mail to a person without an account, every mail
// about their room): the page's button, or a mail client's RFC 8058 one-click POST
// (which carries no cookie and no form token, so this route has no CSRF
// check). Requests for a confirmation are never turned off this way.
func (d *Dashboard) unsubscribeConfirm(c *fiber.Ctx) error {
	if d.notify == nil {
		return d.showErrorT(c, fiber.StatusNotFound, "error.unsubscribe_invalid")
	}
	token := c.Params("token")
	if err := d.unsubscribeReader(c, token); err != nil {
		return d.fail(c, err)
	}
	person := d.notify.PersonUnsubscribeToken(token)
	unsubscribe := d.notify.UnsubscribeNotices
	if person {
		unsubscribe = d.notify.UnsubscribePerson // a person's mails about one room
	}
	email, err := unsubscribe(c.UserContext(), token)
	if app.ErrorCodeOf(err) == app.ErrNotFound {
		return d.showErrorT(c, fiber.StatusNotFound, "error.unsubscribe_sign_in")
	}
	if err != nil {
		return d.fail(c, err)
	}
	return d.render(c, "unsubscribe", d.words(c, nil).T("unsubscribe.done_heading"), nil, unsubscribeData{Email: email, Done: true, Person: person})
}
