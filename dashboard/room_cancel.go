package dashboard

import (
	"fmt"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// roomCancel is an owner's cancel of a room for its side whose human left
// the account (app.Rooms.CancelForSeat): the room closes as cancelled and
// the other side is told.
func (d *Dashboard) roomCancel(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	roomID, err := c.ParamsInt("id")
	if err != nil || roomID <= 0 {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_room")
	}
	side := negotiation.Side(c.FormValue("side"))
	if side != negotiation.SideA && side != negotiation.SideB {
		c.Status(fiber.StatusBadRequest)
		return d.roomPage(c, v, d.words(c, v).T("lv17_form.side"))
	}
	_, err = d.rooms.CancelForSeat(c.UserContext(), v.user.ID, int64(roomID), side)
	if code := app.ErrorCodeOf(err); code == app.ErrConflict || code == app.ErrInvalid {
		c.Status(statusOf(code))
		return d.roomPage(c, v, d.say(c, v, err))
	} else if err != nil {
		return d.fail(c, err)
	}
	return c.Redirect(fmt.Sprintf("/rooms/%d?side=%s", roomID, url.QueryEscape(string(side))), fiber.StatusSeeOther)
}
