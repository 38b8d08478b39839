package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// refuseConfirm records that an address refuses further invitations: the
// page's button, or a mail client's RFC 8058 one-click POST (no cookie, no
// form token: like /unsubscribe, this route has no CSRF check; all the
// token can do is stop invitations to its own address).
func (d *Dashboard) refuseConfirm(c *fiber.Ctx) error {
	w := d.words(c, nil)
	if d.notify == nil {
		return d.showError(c, fiber.StatusNotFound, w.T("refuse.invalid"))
	}
	email, err := d.notify.RefuseInvitations(c.UserContext(), c.Params("token"))
	if app.ErrorCodeOf(err) == app.ErrNotFound {
		return d.showError(c, fiber.StatusNotFound, w.T("refuse.invalid"))
	}
	if err != nil {
		return d.fail(c, err)
	}
	return d.render(c, "refuse", w.T("refuse.done_heading"), nil, refuseData{Email: email, Done: true})
}
