package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/negotiation"
)

// inviteAnswer is a person's first tap on an invitation: it seats them
// (side b, the inviter's schema) and applies their answer in one
// transaction; their tap is their confirmation. The seat is then bound to
// this browser (a cookie) and to their personal link.
func (d *Dashboard) inviteAnswer(c *fiber.Ctx) error {
	code := c.Params("code")
	loc, _ := personZone(c)
	inv, err := d.rooms.InvitationByCode(c.UserContext(), code, loc)
	if err != nil {
		return d.fail(c, err)
	}
	data := inviteData{Inv: inv, Code: code, Fields: counterForm(inv.Schema, inv.Card, loc)}
	f, err := readPersonForm(c)
	if err != nil {
		return d.fail(c, err)
	}
	data.Email = f.Email
	ans, fields, ok := f.answer(inv.Schema)
	if fields != nil {
		data.Fields = fields
	}
	if !ok {
		c.Status(fiber.StatusBadRequest)
		return d.invitePage(c, data)
	}
	res, err := d.rooms.AnswerInvitation(c.UserContext(), code, ans)
	if err != nil {
		return d.personRefused(c, err, f.Verdict, data.Fields, func(msg string, fields []form.Field) error {
			data.Error, data.Fields = msg, fields
			if refreshed, err := d.rooms.InvitationByCode(c.UserContext(), code, loc); err == nil {
				data.Inv = refreshed
			}
			return d.invitePage(c, data)
		})
	}
	d.setCookie(c, seatCookieName(res.RoomID), res.SeatToken, seatTTL)
	return c.Redirect("/p/"+res.SeatToken+"?welcome=1", fiber.StatusSeeOther)
}

// personRefused shows a refused answer on the page it came from: a
// validation message beside the field it names (counter), any other
// message above the form. Internal errors are the error page.
func (d *Dashboard) personRefused(c *fiber.Ctx, err error, verdict negotiation.Verdict, fields []form.Field,
	again func(msg string, fields []form.Field) error) error {
	code := app.ErrorCodeOf(err)
	if code != app.ErrInvalid && code != app.ErrConflict {
		return d.fail(c, err)
	}
	msg := app.ErrorMessageOf(err)
	c.Status(statusOf(code))
	if verdict == negotiation.VerdictCounter && code == app.ErrInvalid && form.Attach(fields, msg) {
		msg = ""
	}
	return again(msg, fields)
}
