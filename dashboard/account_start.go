package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// startData is an account's first-steps page.
type startData struct {
	M      app.Membership
	MCPURL string
	// OAuth: assistants that support MCP authorization connect with the
	// URL alone (or AnyURL, choosing the account when they consent).
	OAuth  bool
	AnyURL string
	Lead   bool // the viewer may invite (owners and admins)
}

// accountStart says what to do next in an account: connect an agent (the
// MCP URL: with OAuth, all an assistant that supports it needs; the
// others' agent is made in Settings, with its key), invite people.
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
		MCPURL: d.mcpURL(m.AccountSlug), OAuth: d.oauth != nil, AnyURL: d.baseURL + "/mcp", Lead: app.May(m.Role, app.ActManageMembers, app.Colleagues)}}, v)
}
