package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// startData is an account's first-steps page.
type startData struct {
	M      app.Membership
	MCPURL string
	Lead   bool // the viewer may invite (owners and admins)
}

// accountStart says what to do next in an account: connect an agent (the
// MCP URL; the agent is made in Settings, with its key), invite people.
func (d *Dashboard) accountStart(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	m, err := d.accounts.Membership(c.UserContext(), v.user.ID, c.Params("slug"))
	if err != nil {
		return d.fail(c, err)
	}
	return d.renderPage(c, "start", &page{Title: d.words(c, v).T("start.title", m.AccountName), Data: startData{M: m,
		MCPURL: d.mcpURL(m.AccountSlug), Lead: app.May(m.Role, app.ActManageMembers, app.Colleagues)}}, v)
}
