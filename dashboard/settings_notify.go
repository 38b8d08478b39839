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

// skipWords are the catalog's words of why a delivery was skipped (or
// its device removed), by the English the notification workers log: the
// log shows them in the reader's language, and anything else (a mail
// server's or a push service's answer) as it was.
var skipWords = map[string]locale.Key{
	"email requests are turned off":           "notif.skip_email_requests_off",
	"email notices are turned off":            "notif.skip_email_notices_off",
	"push requests are turned off":            "notif.skip_push_requests_off",
	"push notices are turned off":             "notif.skip_push_notices_off",
	"the device unsubscribed":                 "notif.skip_device_unsubscribed",
	"the room no longer exists":               "notif.skip_room_gone",
	"no longer this side's human":             "notif.skip_not_their_seat",
	"the confirmation is no longer pending":   "notif.skip_not_pending",
	"Web Push is not configured (VAPID keys)": "notif.skip_push_not_configured",
	"no device":              "notif.skip_no_device",
	"push subscription gone": "notif.skip_push_gone",
	"the address refused invitations from Taasky": "notif.skip_invite_refused",
	"the invitation was answered or withdrawn":    "notif.skip_invite_answered",
	"the invitation has expired":                  "notif.skip_invite_expired",
	"the address was erased":                      "notif.skip_invite_erased",
	"no longer their turn":                        "remind11_skip_not_their_turn",
	"they answered since":                         "remind11_skip_answered",
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
		if k, ok := skipWords[x.Error]; ok {
			out[i].Error = w.T(k)
		}
	}
	return out
}

// loc is the viewer's time zone.
func (v *viewer) loc() *time.Location { return zoneOr(v.user.TimeZone, time.UTC) }
