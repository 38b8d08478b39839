package dashboard

import (
	"fmt"
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// roomDecide is the human's answer to their pending confirmation, bound to
// the subject_hash the card showed them (app.Rooms.DecideAsOwner).
func (d *Dashboard) roomDecide(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	roomID, err := c.ParamsInt("id")
	if err != nil || roomID <= 0 {
		return d.showErrorT(c, fiber.StatusNotFound, "error.no_room")
	}
	accept, ok := parseAnswer(c.FormValue("answer"))
	msg := ""
	if !ok {
		msg = d.words(c, v).T("form.answer")
	}
	cid := c.FormValue("confirmation_id")
	if msg == "" && cid == "" {
		msg = d.words(c, v).T("form.confirmation_id")
	}
	if msg != "" {
		c.Status(fiber.StatusBadRequest)
		return d.roomPage(c, v, msg)
	}
	_, err = d.rooms.DecideAsOwner(c.UserContext(), v.user.ID, int64(roomID), cid,
		negotiation.SubjectHash(c.FormValue("subject_hash")), accept)
	if code := app.ErrorCodeOf(err); code == app.ErrConflict || code == app.ErrInvalid {
		c.Status(statusOf(code))
		return d.roomPage(c, v, d.say(c, v, err))
	} else if err != nil {
		return d.fail(c, err)
	}
	return c.Redirect(fmt.Sprintf("/rooms/%d?side=%s&answered=%s", roomID,
		url.QueryEscape(c.FormValue("side")), url.QueryEscape(cid)), fiber.StatusSeeOther)
}

// parseAnswer reads the answer button: confirm or decline (ok: it is
// one of them).
func parseAnswer(s string) (accept, ok bool) {
	switch s {
	case "confirm":
		return true, true
	case "decline":
		return false, true
	}
	return false, false
}
