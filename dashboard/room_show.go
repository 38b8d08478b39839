package dashboard

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// roomData is the room page.
type roomData struct {
	R      *app.HumanRoom
	RoomID int64
	Self   string // this page's path, side included
	Error  string // why an answer was refused
}

// roomShow is a room as a member of one of its accounts sees it: state,
// deadline, the card with its pending confirmation, the side's own
// limits, the notes and the timeline. ?side= picks a seat when both are
// the user's; ?answered= shows what became of an answer just given.
func (d *Dashboard) roomShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.roomPage(c, v, "")
}

func (d *Dashboard) roomPage(c *fiber.Ctx, v *viewer, errMsg string) error {
	roomID, err := c.ParamsInt("id")
	if err != nil || roomID <= 0 {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_room")
	}
	side := negotiation.Side(c.Query("side", c.FormValue("side")))
	answered := c.Query("answered")
	h, err := d.rooms.ForHuman(c.UserContext(), v.user.ID, int64(roomID), side, answered)
	if err != nil {
		return d.fail(c, err)
	}
	nameThem(d.words(c, v), h)
	self := fmt.Sprintf("/rooms/%d?side=%s", roomID, url.QueryEscape(string(h.Side)))
	title := h.View.Title
	if title == "" {
		title = d.words(c, v).T("rooms.untitled", strconv.Itoa(roomID))
	}
	p := &page{Title: title, Live: fmt.Sprintf("/rooms/%d/events?side=%s", roomID, url.QueryEscape(string(h.Side))), Zone: h.TimeZone.String(),
		Data: roomData{R: h, RoomID: int64(roomID), Self: self, Error: errMsg}}
	if c.Method() == fiber.MethodPost { // a refused answer, shown at /rooms/{id}/decide
		p.LivePage = self
	}
	return d.renderPage(c, "room", p, v)
}
