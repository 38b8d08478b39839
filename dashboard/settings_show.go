package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsData is the settings page.
type settingsData struct {
	Accounts []accountSettings
	NewKey   *newKey         // a key just issued: shown this once
	Notify   *notifySettings // nil: notifications are not set up in this process
	Error    string
	Notice   string
}

type accountSettings struct {
	M      app.Membership
	MCPURL string
	Agents []agentSettings
}

type agentSettings struct {
	A       app.Agent
	Keys    []app.AgentKey
	Manages bool // the viewer may issue and revoke its keys
	// OAuth: connected with OAuth (by a client, not with keys); nil: keys.
	OAuth *app.OAuthConnection
}

type newKey struct {
	Account, Agent, Key, MCPURL string
}

var settingsNotices = map[string]string{"revoked": "The key was revoked: it no longer works.",
	"zone":         "Your time zone was saved.",
	"notify":       "Your notification choices were saved.",
	"push-on":      "This browser will get your notifications.",
	"push-off":     "The device was removed: it gets no more notifications.",
	"push-test":    "A test notification is on its way to your devices: the delivery log below says how it went.",
	"disconnected": "The agent was disconnected: its tokens no longer work.",
	"push-nothing": "There is no device to send a test to: turn notifications on in this browser first."}

// settingsShow lists the user's accounts with their agents and keys, and
// the time zone their cards are shown in.
func (d *Dashboard) settingsShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.settingsPage(c, v, settingsData{Notice: settingsNotices[c.Query("done")]})
}

func (d *Dashboard) settingsPage(c *fiber.Ctx, v *viewer, data settingsData) error {
	ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
	if err != nil {
		return d.fail(c, err)
	}
	for _, m := range ms {
		as := accountSettings{M: m, MCPURL: d.mcpURL(m.AccountSlug)}
		agents, err := d.accounts.ListAgents(c.UserContext(), m.AccountSlug)
		if err != nil {
			return d.fail(c, err)
		}
		connected, err := d.oauthConnections(c, m.AccountSlug)
		if err != nil {
			return d.fail(c, err)
		}
		for _, a := range agents {
			keys, err := d.accounts.ListAgentKeys(c.UserContext(), m.AccountSlug, a.ID)
			if err != nil {
				return d.fail(c, err)
			}
			g := agentSettings{A: a, Keys: keys, Manages: manages(m, a, v.user.ID)}
			if x, ok := connected[a.ID]; ok {
				g.OAuth = &x
			}
			as.Agents = append(as.Agents, g)
		}
		data.Accounts = append(data.Accounts, as)
	}
	if data.Notify, err = d.notifySettings(c, v); err != nil {
		return d.fail(c, err)
	}
	return d.renderPage(c, "settings", &page{Title: "Settings", Data: data}, v)
}

func (d *Dashboard) mcpURL(slug string) string { return d.baseURL + "/mcp/" + slug }

// manages asks app.May whether the member may issue and revoke the
// agent's keys (owners and admins: every agent; a member: their own).
func manages(m app.Membership, a app.Agent, userID int64) bool {
	return app.May(m.Role, app.ActManageAgent, app.WhoseOf(a.OwnerUserID, userID))
}

// membership returns the user's membership in the account with slug.
func (d *Dashboard) membership(c *fiber.Ctx, v *viewer, slug string) (app.Membership, error) {
	ms, err := d.accounts.Memberships(c.UserContext(), v.user.ID)
	if err != nil {
		return app.Membership{}, err
	}
	for _, m := range ms {
		if m.AccountSlug == slug {
			return m, nil
		}
	}
	return app.Membership{}, app.Errorf(app.ErrNotFound, "account: you are not a member of %q", slug)
}
