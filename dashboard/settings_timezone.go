package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// settingsTimezone sets the time zone the user's cards are shown in (the
// script proposes the browser's).
func (d *Dashboard) settingsTimezone(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if err := d.accounts.SetUserTimeZone(c.UserContext(), v.user.ID, c.FormValue("time_zone")); err != nil {
		return d.settingsRefused(c, v, err)
	}
	next := safeNext(c.FormValue("next"))
	if next == "/" && c.FormValue("next") == "" {
		next = "/settings?done=zone"
	}
	return c.Redirect(next, fiber.StatusSeeOther)
}
