package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
)

// settingsNotifyPrefs saves what the user is told on which channel: email
// and push, requests for a confirmation and notices.
func (d *Dashboard) settingsNotifyPrefs(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if d.notify == nil {
		return d.settingsRefused(c, v, errNotifyOff)
	}
	if err := d.notify.SetPrefs(c.UserContext(), v.user.ID, form.NotifyPrefs(c.FormValue)); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=notify#notify-h", fiber.StatusSeeOther)
}

var (
	errNotifyOff = refusal(app.ErrNotFound, "error.notify_off")
	errPushOff   = refusal(app.ErrInvalid, "error.push_off")
)

// pushOff says why this server cannot take push subscriptions or send
// pushes, or nil when it can.
func (d *Dashboard) pushOff() error {
	switch {
	case d.notify == nil:
		return errNotifyOff
	case d.vapidKey == "":
		return errPushOff
	}
	return nil
}
