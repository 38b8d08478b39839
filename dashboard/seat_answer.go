package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/dashboard/form"
)

// seatAnswer is a seated person's tap: approve, counter, reject or leave.
func (d *Dashboard) seatAnswer(c *fiber.Ctx) error {
	token := c.Params("token")
	loc, told := d.personZone(c)
	h, err := d.rooms.PersonRoom(c.UserContext(), token, loc)
	if err != nil {
		return d.fail(c, err)
	}
	f, err := readPersonForm(c)
	if err != nil {
		return d.fail(c, err)
	}
	if fields, ok := f.grown(h.Schema, d.words(c, nil)); ok {
		return d.seatPage(c, token, fields, "")
	}
	ans, fields, ok := f.answer(h.Schema, d.words(c, nil), loc, told)
	if !ok {
		c.Status(fiber.StatusBadRequest)
		return d.seatPage(c, token, fields, "")
	}
	if _, err := d.rooms.AnswerAsPerson(c.UserContext(), token, ans); err != nil {
		return d.personRefused(c, err, f.Verdict, fields, func(msg string, fields []form.Field) error {
			return d.seatPage(c, token, fields, msg)
		})
	}
	return c.Redirect("/p/"+token, fiber.StatusSeeOther)
}
