package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
)

// settingsPushTest queues a test push to the user's devices (or to one):
// the delivery log then says how each went.
func (d *Dashboard) settingsPushTest(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if err := d.pushOff(); err != nil {
		return d.settingsRefused(c, v, err)
	}
	id, ok := form.DeviceID(c.FormValue)
	if !ok {
		return d.settingsRefused(c, v, refusal(app.ErrInvalid, "error.device_not_yours"))
	}
	if _, err := d.notify.SendTestPush(c.UserContext(), v.user.ID, id); err != nil {
		if app.ErrorCodeOf(err) == app.ErrNotFound {
			return c.Redirect("/settings?done=push-nothing#push-h", fiber.StatusSeeOther)
		}
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=push-test#push-h", fiber.StatusSeeOther)
}
