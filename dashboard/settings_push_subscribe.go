package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/dashboard/form"
)

// settingsPushSubscribe stores this browser's push subscription, which the
// settings script made with the service worker and the VAPID public key
// (this needs JavaScript: a browser subscribes only from a script).
func (d *Dashboard) settingsPushSubscribe(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if err := d.pushOff(); err != nil {
		return d.settingsRefused(c, v, err)
	}
	if _, err := d.notify.Subscribe(c.UserContext(), v.user.ID, form.PushSubscription(c.FormValue)); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=push-on#push-h", fiber.StatusSeeOther)
}
