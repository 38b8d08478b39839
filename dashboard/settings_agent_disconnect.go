package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsAgentDisconnect disconnects an agent connected with OAuth, at
// once: its tokens stop working on their next call. The audit log names
// the person who did it.
func (d *Dashboard) settingsAgentDisconnect(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	if d.oauth == nil {
		return d.settingsRefused(c, v, refusal(app.ErrNotFound, "error.no_oauth_agents"))
	}
	agent, err := d.managedAgent(c, v, c.FormValue("account"), c.Params("id"))
	if err != nil {
		return d.settingsRefused(c, v, err)
	}
	if err := d.oauth.Disconnect(app.AsActor(c.UserContext(), v.user.ID), agent.AccountSlug, agent.ID); err != nil {
		return d.settingsRefused(c, v, err)
	}
	return c.Redirect("/settings?done=disconnected", fiber.StatusSeeOther)
}

// oauthConnections are the account's OAuth agents by agent id (none when
// OAuth is not set up).
func (d *Dashboard) oauthConnections(c *fiber.Ctx, slug string) (map[int64]app.OAuthConnection, error) {
	if d.oauth == nil {
		return nil, nil
	}
	cs, err := d.oauth.Connections(c.UserContext(), slug)
	if err != nil {
		return nil, err
	}
	m := make(map[int64]app.OAuthConnection, len(cs))
	for _, x := range cs {
		m[x.AgentID] = x
	}
	return m, nil
}
