package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// oauthConsentAnswer is the person's answer on the consent screen: approve
// (for the account chosen) sends the browser back to the client with a
// code, decline with access_denied.
func (d *Dashboard) oauthConsentAnswer(c *fiber.Ctx) error {
	if d.oauth == nil {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_oauth")
	}
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	params := authorizeParams(c)
	var redirect string
	var err error
	switch c.FormValue("decision") {
	case "approve":
		redirect, err = d.oauth.Approve(c.UserContext(), params, v.user.ID, c.FormValue("account"))
	case "decline":
		redirect, err = d.oauth.Decline(c.UserContext(), params, v.user.ID)
	default:
		err = refusal(app.ErrInvalid, "form.decision", c.FormValue("decision"))
	}
	if err != nil {
		return d.failConsent(c, v, err)
	}
	return c.Redirect(redirect, fiber.StatusSeeOther)
}
