package dashboard

import (
	"github.com/gofiber/fiber/v2"
)

// deliveriesData is the delivery log page.
type deliveriesData struct {
	Lines  []deliveryLine
	Next   string // the cursor of the older page, "" at the end
	Paged  bool   // this is not the newest page
	Active bool   // notifications are set up in this process
	// KeptDays is how many days a line is kept (0: for good).
	KeptDays int
}

const deliveriesPerPage = 50

// settingsDeliveries is the user's delivery log, newest first, a page at a
// time: every notification Taasky sent or tried to send them (and the
// invitations their agents asked it to email), with its channel, recipient,
// status, attempts and last error.
func (d *Dashboard) settingsDeliveries(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	data := deliveriesData{Paged: c.Query("after") != "", Active: d.notify != nil, KeptDays: d.logDays}
	if d.notify != nil {
		lines, next, err := d.notify.DeliveryLogPage(c.UserContext(), v.user.ID, deliveriesPerPage, c.Query("after"))
		if err != nil {
			return d.fail(c, err)
		}
		data.Lines, data.Next = deliveryLines(d.words(c, v), lines, v.loc()), next
	}
	return d.render(c, "deliveries", d.words(c, v).T("log.heading"), v, data)
}
