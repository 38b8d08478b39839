package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard/form"
)

// inviteData is the invitation page.
type inviteData struct {
	Inv    *app.Invitation
	Code   string
	Fields []form.Field // the counter form
	Error  string       // an error not tied to one field
	Email  string
	// EmailWrong: the address was refused; it names the form it came with
	// ("pick", "counter" or "join"), whose field the error describes.
	EmailWrong string
	// Nonce goes with each of the page's forms (app.PersonAnswer.Nonce):
	// one per page shown, kept when the page is shown again with a
	// refusal.
	Nonce string
	// Zone is where moments are written (shownZone).
	Zone any
	// askZone: the browser has not told its zone yet (the page's script
	// tells it once).
	askZone bool
}

// inviteShow is the invitation page for a person without an agent: who
// invites, about what, the terms to pick or approve with one tap, a
// counter form from the inviter's schema, and reject. A browser that
// already answered is taken to its seat; a used, withdrawn or expired
// invitation says so, and so does one shown to the opener's own human.
func (d *Dashboard) inviteShow(c *fiber.Ctx) error {
	code := c.Params("code")
	loc, told := d.personZone(c)
	inv, err := d.rooms.InvitationByCode(c.UserContext(), code, loc)
	if err != nil {
		return d.fail(c, err)
	}
	d.shownTo(c, inv)
	if token := d.seatOf(c, inv.RoomID); token != "" {
		if id, err := d.rooms.PersonRoomID(c.UserContext(), token); err == nil && id == inv.RoomID {
			return c.Redirect("/p/"+token, fiber.StatusSeeOther)
		}
	}
	return d.invitePage(c, inviteData{Inv: inv, Code: code, Fields: counterForm(inv.Schema, inv.Card, formZone(inv.TimeZone, told), d.words(c, nil)),
		Zone: shownZone(inv.TimeZone, told), askZone: !told, Nonce: app.NewSeatNonce()})
}

// shownTo makes inv the invitation as the person reading it sees it: to
// the opener's own human, signed in, one they cannot answer (app.Invitation.ShownTo).
func (d *Dashboard) shownTo(c *fiber.Ctx, inv *app.Invitation) {
	if u := d.signedIn(c); u != nil {
		inv.ShownTo(u.ID)
	}
}

func (d *Dashboard) invitePage(c *fiber.Ctx, data inviteData) error {
	w := d.words(c, nil)
	if data.Inv.InviterDeleted {
		data.Inv.InviterName = w.T("party.deleted_account")
	}
	title := w.T("invite.title", data.Inv.InviterName)
	return d.renderPage(c, "invite", &page{Title: title, Zone: pageZone(data.Zone), ZoneGuessed: data.askZone, ZonePick: d.zonePick(c, "/i/"+data.Code), Data: data}, nil)
}
