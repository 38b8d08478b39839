package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// onetapDecide answers the confirmation a one-tap link is bound to, with
// the hash the page showed. The link works once: a second use is told what
// already happened.
func (d *Dashboard) onetapDecide(c *fiber.Ctx) error {
	token := c.Params("token")
	accept, ok := parseAnswer(c.FormValue("answer"))
	var dec *app.Decision
	var refused error
	status := fiber.StatusOK
	if ok {
		var err error
		dec, err = d.rooms.DecideOneTap(c.UserContext(), token, negotiation.SubjectHash(c.FormValue("subject_hash")), accept)
		switch code := app.ErrorCodeOf(err); code {
		case "":
		case app.ErrConflict, app.ErrInvalid:
			refused, status = err, statusOf(code)
		default:
			return d.fail(c, err)
		}
	} else {
		status = fiber.StatusBadRequest
	}
	var t *app.OneTap
	if dec != nil {
		t = dec.OneTap // the card as the answer left it
	} else {
		var err error
		if t, err = d.rooms.OneTapCard(c.UserContext(), token); err != nil {
			return d.fail(c, err)
		}
	}
	w := d.readerWords(c, t.Lang)
	msg := ""
	if !ok {
		msg = w.T("form.answer")
	}
	if refused != nil {
		msg = sayRefusal(w, t.TimeZone, refused) // in the card's zone
	}
	c.Status(status)
	return d.renderPage(c, "onetap", &page{Title: confirmTitle(w, t.Title), Zone: t.TimeZone.String(),
		Data: onetapData{T: t, Token: token, Message: msg, Done: dec}}, nil)
}
