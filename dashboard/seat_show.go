package dashboard

import (
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/negotiation"
)

// seatData is a person's page in a room they answered from the browser.
type seatData struct {
	R       *app.HumanRoom
	Token   string
	Link    string // their personal link
	Fields  []form.Field
	Error   string
	Welcome bool
	// Typed: Fields are what the person sent, refused (the form says so,
	// and live updates leave it as it is).
	Typed bool
	Zone  any // where moments are written (shownZone)
	// Receipt: the room is agreed and the service signs receipts (the
	// .jws is offered); Calendar: its terms hold a moment (the .ics is).
	Receipt  bool
	Calendar bool
}

// seatShow is a person's seat: the room as they see it (the inviter's
// schema), what they may do now, and their personal link.
func (d *Dashboard) seatShow(c *fiber.Ctx) error {
	return d.seatPage(c, c.Params("token"), nil, "")
}

func (d *Dashboard) seatPage(c *fiber.Ctx, token string, fields []form.Field, errMsg string) error {
	loc, told := d.personZone(c)
	h, err := d.rooms.PersonRoom(c.UserContext(), token, loc)
	if err != nil {
		return d.fail(c, err)
	}
	nameThem(d.words(c, nil), h)
	d.rememberSeat(c, h.View.RoomID, token)
	typed := fields != nil
	if fields == nil {
		fields = counterForm(h.Schema, h.Card, formZone(h.TimeZone, told), d.words(c, nil))
	}
	title := h.View.Title
	if title == "" {
		title = d.words(c, nil).T("seat.title", h.Them)
	}
	data := seatData{R: h, Token: token, Link: d.baseURL + "/p/" + token, Fields: fields, Error: errMsg,
		Welcome: c.Query("welcome") != "", Zone: shownZone(h.TimeZone, told), Typed: typed}
	if h.View.State == negotiation.StateAgreed {
		data.Receipt, data.Calendar = d.receipts != nil, holdsTimerange(h.Card)
	}
	p := &page{Title: title, Zone: pageZone(data.Zone), ZoneGuessed: !told, ZonePick: d.zonePick(c, "/p/"+token), Live: fmt.Sprintf("/p/%s/events", token), Data: data}
	if c.Method() == fiber.MethodPost { // a refused answer: a reload shows the page, not the answer sent again
		p.LivePage = "/p/" + token
	}
	return d.renderPage(c, "seat", p, nil)
}
