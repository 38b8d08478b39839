package dashboard

import "github.com/gofiber/fiber/v2"

// accountDeletedData is the page after a deletion: where the person goes
// next (their rooms, or a new account if they have none left).
type accountDeletedData struct {
	HasAccounts bool
}

// accountDeleted says the account was deleted. Anyone may see it: it
// names no account.
func (d *Dashboard) accountDeleted(c *fiber.Ctx) error {
	v, err := d.currentViewer(c)
	if err != nil {
		return d.fail(c, err)
	}
	data := accountDeletedData{}
	if v != nil {
		ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
		if err != nil {
			return d.fail(c, err)
		}
		data.HasAccounts = len(ms) > 0
	}
	return d.renderPage(c, "account_deleted", &page{Title: d.words(c, v).T("account_delete.done_title"), Data: data}, v)
}
