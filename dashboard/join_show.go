package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// joinData is an invitation to join an account, as its link shows it.
type joinData struct {
	Inv    app.MemberInvitation
	Status app.InvitationStatus
	Token  string
	Error  string
	// Refused: the signed-in person may not join with it (another
	// address, or theirs unverified): Error says why, and no button shows.
	Refused bool
}

// joinShow shows what an invitation's link offers: the account, who
// invites, the role, and (signed in) a button to join, or why the
// person signed in may not (app.MemberInvitation.RefusalFor). A link that never
// existed is the same not-found page for everyone.
func (d *Dashboard) joinShow(c *fiber.Ctx) error {
	token := c.Params("token")
	inv, err := d.accounts.InvitationByToken(c.UserContext(), token)
	if err != nil {
		return d.fail(c, err)
	}
	v, err := d.currentViewer(c)
	if err != nil {
		return d.fail(c, err)
	}
	data := joinData{Inv: inv, Token: token}
	if v != nil && inv.Status(d.now()) == app.InvitationPending {
		if err := inv.RefusalFor(v.user); err != nil {
			// Joining would be refused: say so now, with no Join button.
			data.Error, data.Refused = d.say(c, v, err), true
		}
	}
	return d.joinPage(c, v, data)
}

func (d *Dashboard) joinPage(c *fiber.Ctx, v *viewer, data joinData) error {
	data.Status = data.Inv.Status(d.now())
	// Referrer-Policy stays same-origin (setHeaders): the link's token
	// goes to no other site, and the Join button's form says its Origin;
	// under no-referrer a browser says Origin "null" and no Referer, and
	// the form's origin check (formFromHere) refused every Join.
	c.Set(fiber.HeaderCacheControl, "no-store")
	return d.renderPage(c, "join", &page{Title: d.words(c, v).T("join.title", data.Inv.AccountName), Data: data}, v)
}
