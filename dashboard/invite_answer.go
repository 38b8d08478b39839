package dashboard

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
	"github.com/taasky/taasky/negotiation"
)

// inviteAnswer is a person's first tap on an invitation: it seats them
// (side b, the inviter's schema) and applies their answer in one
// transaction; their tap is their confirmation. The seat is then bound to
// this browser (a cookie) and to their personal link. The same page's
// answer sent again (its nonce) is answered the same way, with the seat
// the first took: the browser may have lost the first answer, and with it
// the only way to the seat.
func (d *Dashboard) inviteAnswer(c *fiber.Ctx) error {
	code := c.Params("code")
	loc, told := d.personZone(c)
	inv, err := d.rooms.InvitationByCode(c.UserContext(), code, loc)
	if err != nil {
		return d.fail(c, err)
	}
	d.shownTo(c, inv)
	data := inviteData{Inv: inv, Code: code, Fields: counterForm(inv.Schema, inv.Card, formZone(inv.TimeZone, told), d.words(c, nil)), Zone: shownZone(inv.TimeZone, told)}
	f, err := readPersonForm(c)
	if err != nil {
		return d.fail(c, err)
	}
	data.Email, data.Nonce = f.Email, f.Nonce
	if data.Nonce == "" || len(data.Nonce) > 64 {
		data.Nonce = app.NewSeatNonce()
	}
	if fields, ok := f.grown(inv.Schema, d.words(c, nil)); ok {
		data.Fields = fields
		return d.invitePage(c, data)
	}
	ans, fields, ok := f.answer(inv.Schema, d.words(c, nil), loc, told)
	if u := d.signedIn(c); u != nil {
		ans.UserID = u.ID // the opener's own human is refused
	}
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
			if e, ok := errors.AsType[*app.Error](err); ok && e.Words.Key == "error.email_address" {
				data.EmailWrong = emailForm(f.Verdict)
			}
			if refreshed, err := d.rooms.InvitationByCode(c.UserContext(), code, loc); err == nil {
				d.shownTo(c, refreshed)
				data.Inv = refreshed
			}
			return d.invitePage(c, data)
		})
	}
	d.rememberSeat(c, res.RoomID, res.SeatToken)
	return c.Redirect("/p/"+res.SeatToken+"?welcome=1", fiber.StatusSeeOther)
}

// personRefused shows a refused answer on the page it came from, in the
// reader's language: each broken rule of a counter's terms beside the
// field it names, any other refusal (or one that names no field) above
// the form. Internal errors are the error page.
func (d *Dashboard) personRefused(c *fiber.Ctx, err error, verdict negotiation.Verdict, fields []form.Field,
	again func(msg string, fields []form.Field) error) error {
	code := app.ErrorCodeOf(err)
	if code != app.ErrInvalid && code != app.ErrConflict {
		return d.fail(c, err)
	}
	w := d.words(c, nil)
	msg := sayRefusal(w, time.UTC, err) // a person without an account: their zone is only guessed
	c.Status(statusOf(code))
	if e, ok := errors.AsType[*app.Error](err); ok && verdict == negotiation.VerdictCounter && code == app.ErrInvalid {
		faults := e.Faults
		if len(faults) == 0 {
			faults = []negotiation.Fault{{Message: e.Message, Words: e.Words}}
		}
		attached := true
		for _, f := range faults {
			attached = form.Attach(fields, f.Message, f.Words, w) && attached
		}
		if attached {
			msg = ""
		}
	}
	return again(msg, fields)
}

// emailForm names the invitation page's form an answer with verdict came
// from (each has its own address field).
func emailForm(verdict negotiation.Verdict) string {
	switch verdict {
	case negotiation.VerdictCounter:
		return "counter"
	case "join":
		return "join"
	}
	return "pick"
}
