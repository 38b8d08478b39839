package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// accountData is an account's settings page: its name, and a page of its
// audit log (owners and admins only, as the policy says).
type accountData struct {
	M      app.Membership
	Name   string // the rename form's name, as typed
	Audit  []app.AuditEntry
	Next   string // the next audit page's cursor
	Error  string
	Notice string
	// CanDelete: the viewer may delete the account (owners);
	// DeleteError is why the deletion just asked was refused.
	CanDelete   bool
	DeleteError string
}

var accountNotices = map[string]locale.Key{
	"renamed": "account.done.renamed",
}

// accountSettings shows the account's settings page.
func (d *Dashboard) accountSettings(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.accountPage(c, v, c.Params("slug"), c.Query("cursor"), accountData{Notice: d.doneNotice(c, v, accountNotices)})
}

func (d *Dashboard) accountPage(c *fiber.Ctx, v *viewer, slug, cursor string, data accountData) error {
	ctx := c.UserContext()
	m, err := d.accounts.Membership(ctx, v.user.ID, slug)
	if err != nil {
		return d.fail(c, err)
	}
	if !app.May(m.Role, app.ActManageAccount, app.Colleagues) {
		return d.fail(c, refusal(app.ErrUnauthorized, "error.settings_who"))
	}
	data.M = m
	data.CanDelete = app.May(m.Role, app.ActDeleteAccount, app.Colleagues)
	if data.Name == "" {
		data.Name = m.AccountName
	}
	data.Audit, data.Next, err = d.accounts.AuditLog(ctx, v.user.ID, slug, cursor)
	if err != nil {
		return d.fail(c, err)
	}
	return d.renderPage(c, "account", &page{Title: d.words(c, v).T("account.title", m.AccountName), Data: data}, v)
}

// accountRename renames the account (owners and admins).
func (d *Dashboard) accountRename(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.Params("slug")
	name := c.FormValue("name")
	if _, err := d.accounts.RenameAccount(c.UserContext(), v.user.ID, slug, name); err != nil {
		code := app.ErrorCodeOf(err)
		if code != app.ErrInvalid {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.accountPage(c, v, slug, "", accountData{Name: name, Error: d.say(c, v, err)})
	}
	return c.Redirect("/accounts/"+slug+"/settings?done=renamed", fiber.StatusSeeOther)
}
