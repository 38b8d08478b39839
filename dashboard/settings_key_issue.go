package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsKeyIssue issues another key for an agent the user manages and
// shows it, once. The agent's other keys keep working.
func (d *Dashboard) settingsKeyIssue(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	agent, err := d.managedAgent(c, v, c.FormValue("account"), c.Params("id"))
	if err != nil {
		return d.settingsRefused(c, v, err)
	}
	key, err := d.accounts.IssueAgentKey(app.AsActor(c.UserContext(), v.user.ID), agent.AccountSlug, agent.ID)
	if err != nil {
		return d.settingsRefused(c, v, err)
	}
	return d.settingsPage(c, v, settingsData{NewKey: &newKey{Account: agent.AccountSlug, Agent: agent.Name, Key: key.Key,
		MCPURL: d.mcpURL(agent.AccountSlug)}})
}

// managedAgent finds an agent of the account that the user manages.
func (d *Dashboard) managedAgent(c *fiber.Ctx, v *viewer, slug, id string) (app.Agent, error) {
	m, err := d.membership(c, v, slug)
	if err != nil {
		return app.Agent{}, err
	}
	agents, err := d.accounts.ListAgents(c.UserContext(), slug)
	if err != nil {
		return app.Agent{}, err
	}
	for _, a := range agents {
		if formatID(a.ID) == id {
			if !manages(m, a, v.user.ID) {
				return app.Agent{}, refusal(app.ErrUnauthorized, "error.agent_keys_who_any")
			}
			return a, nil
		}
	}
	return app.Agent{}, refusal(app.ErrNotFound, "error.no_agent", id, slug)
}
