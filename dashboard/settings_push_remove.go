package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
)

// settingsPushRemove forgets one of the user's push devices: by id (the
// device list's buttons, no script needed) or by endpoint (the script, for
// this browser, after it unsubscribed itself).
func (d *Dashboard) settingsPushRemove(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if d.notify == nil {
		return d.settingsRefused(c, v, errNotifyOff)
	}
	id, ok := form.DeviceID(c.FormValue)
	endpoint := c.FormValue("endpoint")
	if !ok || (id == 0 && endpoint == "") {
		return d.settingsRefused(c, v, refusal(app.ErrInvalid, "error.device_which"))
	}
	if err := d.notify.Unsubscribe(c.UserContext(), v.user.ID, id, endpoint); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=push-off#push-h", fiber.StatusSeeOther)
}
