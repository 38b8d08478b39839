package dashboard

import "github.com/gofiber/fiber/v2"

// authLogout signs the person out of this browser: its session ends on
// the server (app.Accounts.EndSession), so that a copy of the session
// cookie stops working now rather than when it expires, and the cookie is
// cleared. Their other browsers stay signed in (Settings ends those: "Where
// you are signed in"). Without a valid session there is nothing to end but
// the cookie.
func (d *Dashboard) authLogout(c *fiber.Ctx) error {
	if s, ok := d.sessionOf(c); ok {
		if err := d.accounts.EndSession(c.UserContext(), s.Token); err != nil {
			return d.fail(c, err) // the database did not answer: the session could not be ended, so nothing is cleared
		}
	}
	d.clearCookie(c, sessionCookie)
	return c.Redirect("/signed-out", fiber.StatusSeeOther)
}

func (d *Dashboard) authSignedOut(c *fiber.Ctx) error {
	return d.render(c, "signed_out", d.words(c, nil).T("signed_out.heading"), nil, signedOutData{})
}

// signedOutData is the page after a sign-out, or after the person deleted
// their profile.
type signedOutData struct {
	Deleted bool
}
