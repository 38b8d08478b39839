package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
)

// settingsSessionEnd signs the person out of one of their other browsers
// (Settings, "Where you are signed in": a lost phone, a computer they no
// longer use): its session ends, so its next request and its open live
// pages find it ended. This browser's own is ended by signing out.
func (d *Dashboard) settingsSessionEnd(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	id, ok := form.SessionID(c.FormValue)
	if !ok {
		return d.settingsRefused(c, v, refusal(app.ErrInvalid, "sessions19_error.session_which"))
	}
	if err := d.accounts.EndOtherSession(c.UserContext(), v.user.ID, id, d.thisToken(c)); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=session-ended#sessions-h", fiber.StatusSeeOther)
}

// settingsSessionsEnd signs the person out of every browser but this one.
func (d *Dashboard) settingsSessionsEnd(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if _, err := d.accounts.EndOtherSessions(c.UserContext(), v.user.ID, d.thisToken(c)); err != nil {
		return d.fail(c, err)
	}
	return c.Redirect("/settings?done=sessions-ended#sessions-h", fiber.StatusSeeOther)
}
