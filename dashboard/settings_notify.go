package dashboard

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/jobs"
)

// notifySettings is the notifications part of the settings page: what the
// human is told on which channel, their push devices, and the latest lines
// of their delivery log.
type notifySettings struct {
	Prefs   app.NotifyPrefs
	PushKey string // the VAPID public key; "" when Web Push is not configured
	Devices []deviceLine
	Log     []deliveryLine
	More    bool // older lines: on /settings/deliveries
}

// deviceLine is a push device in words.
type deviceLine struct {
	app.PushSubscription
	Since, LastSent string
}

// deliveryLine is a delivery log line in words.
type deliveryLine struct {
	app.Delivery
	What, When, Channel, Status string
	Failed                      bool
}

// settingsLogLines is how much of the delivery log the settings page shows.
const settingsLogLines = 10

func (d *Dashboard) notifySettings(c *fiber.Ctx, v *viewer) (*notifySettings, error) {
	if d.notify == nil {
		return nil, nil
	}
	ctx := c.UserContext()
	prefs, err := d.notify.Prefs(ctx, v.user.ID)
	if err != nil {
		return nil, err
	}
	devices, err := d.notify.PushSubscriptions(ctx, v.user.ID)
	if err != nil {
		return nil, err
	}
	log, next, err := d.notify.DeliveryLogPage(ctx, v.user.ID, settingsLogLines, "")
	if err != nil {
		return nil, err
	}
	loc := v.loc()
	w := d.words(c, v)
	ns := &notifySettings{Prefs: prefs, PushKey: d.vapidKey, Log: deliveryLines(w, log, loc), More: next != ""}
	for _, s := range devices {
		dl := deviceLine{PushSubscription: s, Since: w.Moment(s.CreatedAt, loc)}
		if s.LastSentAt != nil {
			dl.LastSent = w.Moment(*s.LastSentAt, loc)
		}
		ns.Devices = append(ns.Devices, dl)
	}
	return ns, nil
}

func deliveryLines(w *locale.Printer, ds []app.Delivery, loc *time.Location) []deliveryLine {
	out := make([]deliveryLine, len(ds))
	word := func(prefix, v string) string {
		if k := locale.Key(prefix + v); locale.Has(k) {
			return w.T(k)
		}
		return v
	}
	for i, x := range ds {
		out[i] = deliveryLine{Delivery: x, What: word("topic.", string(x.Topic)), When: w.Moment(x.CreatedAt, loc),
			Channel: word("channel.", string(x.Channel)), Status: word("status.", string(x.Status)),
			Failed: x.Status == jobs.StatusFailed || x.Status == jobs.StatusRetrying}
	}
	return out
}

// loc is the viewer's time zone.
func (v *viewer) loc() *time.Location { return zoneOr(v.user.TimeZone, time.UTC) }
