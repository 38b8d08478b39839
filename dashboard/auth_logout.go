package dashboard

import "github.com/gofiber/fiber/v2"

// authLogout signs the person out: their sessions end on the server
// (app.Accounts.EndSessions), in this browser and every other, so that a
// copy of the session cookie stops working now rather than when it
// expires; the cookie is cleared. Without a valid session there is
// nothing to end but the cookie.
func (d *Dashboard) authLogout(c *fiber.Ctx) error {
	u, ok, err := d.sessionUser(c)
	if err != nil {
		return d.fail(c, err) // the database did not answer: the session could not be ended, so nothing is cleared
	}
	if ok {
		if err := d.accounts.EndSessions(c.UserContext(), u.ID); err != nil {
			return d.fail(c, err)
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
