package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// refuseData is the page an invitation mail's refusal link opens.
type refuseData struct {
	Token string
	Email string
	Done  bool
}

// refuseShow is what the link "refuse every further invitation" of an
// invitation mail opens: the address and a button; nothing changes (mail
// scanners open links too).
func (d *Dashboard) refuseShow(c *fiber.Ctx) error {
	token := c.Params("token")
	w := d.words(c, nil)
	email, ok := "", false
	if d.notify != nil {
		email, ok = d.notify.RefusingAddress(token)
	}
	if !ok {
		return d.showError(c, fiber.StatusNotFound, w.T("refuse.invalid"))
	}
	return d.render(c, "refuse", w.T("refuse.heading", email), nil, refuseData{Token: token, Email: email})
}
