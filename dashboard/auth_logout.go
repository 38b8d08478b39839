package dashboard

import "github.com/gofiber/fiber/v2"

// authLogout ends the session in this browser.
func (d *Dashboard) authLogout(c *fiber.Ctx) error {
	d.clearCookie(c, sessionCookie)
	return c.Redirect("/signed-out", fiber.StatusSeeOther)
}

func (d *Dashboard) authSignedOut(c *fiber.Ctx) error {
	return d.render(c, "signed_out", d.words(c, nil).T("signed_out.heading"), nil, nil)
}
