package dashboard

import (
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
)

// seatReceiptFile downloads the receipt of the agreed room a person's
// token opens: the same JWS as /rooms/{id}/receipt.jws and the agreed
// mail's attachment.
func (d *Dashboard) seatReceiptFile(c *fiber.Ctx) error {
	a, err := d.rooms.PersonAgreement(c.UserContext(), c.Params("token"), nil, true)
	if err != nil {
		return d.fail(c, err)
	}
	if a.Receipt == "" {
		return d.showErrorT(c, fiber.StatusNotFound, "error.link_not_valid")
	}
	c.Set(fiber.HeaderContentType, "application/jose")
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="taasky-receipt-room-%d.jws"`, a.RoomID))
	return c.SendString(a.Receipt)
}

// seatCalendarFile downloads the calendar entry (.ics) of the agreed
// room a person's token opens, as the agreed mail attaches it (the same
// UIDs, so a calendar that has one keeps one).
func (d *Dashboard) seatCalendarFile(c *fiber.Ctx) error {
	token := c.Params("token")
	loc, _ := d.personZone(c)
	a, err := d.rooms.PersonAgreement(c.UserContext(), token, loc, false)
	if err != nil {
		return d.fail(c, err)
	}
	m := &notify.Message{Kind: notify.KindAgreed, RoomID: a.RoomID, RoomUID: a.RoomUID, RoomURL: d.baseURL + "/p/" + token, Person: true,
		Title: a.Title, Them: a.Them, Card: a.Card, Now: a.AgreedAt, Lang: d.words(c, nil).Lang(), TimeZone: a.TimeZone, ZoneGuessed: a.ZoneGuessed,
		Organizer: d.mailFrom}
	if a.Them == "" {
		m.ThemKey = "party.deleted_account"
	}
	ics := notify.Calendar(m)
	if ics == nil {
		return d.showErrorT(c, fiber.StatusNotFound, "error.link_not_valid")
	}
	c.Set(fiber.HeaderContentType, notify.CalendarType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="invite.ics"`)
	return c.Send(ics)
}

// holdsTimerange reports whether a card's terms hold a moment to put in a
// calendar (notify.Calendar makes an entry of each).
func holdsTimerange(card *negotiation.Card) bool {
	if card == nil || len(card.Options) == 0 {
		return false
	}
	for _, f := range card.Options[0].Fields {
		if f.Type == negotiation.TypeTimerange && len(f.Values) > 0 {
			return true
		}
	}
	return false
}
