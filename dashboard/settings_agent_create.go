package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// settingsAgentCreate creates an agent owned by the user in one of their
// accounts and shows its MCP URL and first key, once.
func (d *Dashboard) settingsAgentCreate(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	slug := c.FormValue("account")
	if _, err := d.membership(c, v, slug); err != nil {
		return d.settingsRefused(c, v, err)
	}
	name := c.FormValue("name")
	agent, key, err := d.accounts.CreateAgent(app.AsActor(c.UserContext(), v.user.ID), slug, name, v.user.Email)
	if err != nil {
		code := app.ErrorCodeOf(err)
		if code == app.ErrInternal {
			return d.fail(c, err)
		}
		c.Status(statusOf(code))
		return d.settingsPage(c, v, settingsData{Error: d.say(c, v, err), AgentName: &typedName{Account: slug, Name: name}})
	}
	return d.settingsPage(c, v, settingsData{NewKey: &newKey{Account: slug, Agent: agent.Name, Key: key.Key, MCPURL: d.mcpURL(slug)}})
}

// settingsRefused shows the settings page with the refusal's message.
func (d *Dashboard) settingsRefused(c *fiber.Ctx, v *viewer, err error) error {
	code := app.ErrorCodeOf(err)
	if code == app.ErrInternal {
		return d.fail(c, err)
	}
	c.Status(statusOf(code))
	return d.settingsPage(c, v, settingsData{Error: d.say(c, v, err)})
}
