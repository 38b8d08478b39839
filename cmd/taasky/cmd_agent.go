package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/taasky/taasky/internal/config"
)

// runAgentCreate is `taasky agent create`.
func runAgentCreate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("agent create", "Creates an agent in an account and prints its MCP URL and API key.\nThe key is shown once: store it in the agent's MCP client now.", stdout)
	slug := cmd.String("account", "", "the account's `slug`")
	name := cmd.String("name", "", "the agent's `name`, 1–80 characters, unique in the account")
	owner := cmd.String("owner-email", "", "the `email` of the member the agent acts for")
	asJSON := cmd.Bool("json", false, `print {"mcp_url": "...", "key": "..."}`)
	if err := cmd.parse(args, "account", "name", "owner-email"); err != nil {
		return err
	}
	cfg, err := loadConfig(getenv, config.RoleAdmin)
	if err != nil {
		return err
	}
	pool, err := openDatabase(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	agent, key, err := newAccounts(pool, cfg).CreateAgent(ctx, *slug, *name, *owner)
	if err != nil {
		return err
	}
	url := mcpURL(cfg, agent.AccountSlug)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			MCPURL string `json:"mcp_url"`
			Key    string `json:"key"`
		}{url, key.Key})
	}
	_, err = fmt.Fprintf(stdout, "Created agent %q in %s for %s.\n  MCP URL: %s\n  Key:     %s\n(The key is shown once: store it now. Send it as \"Authorization: Bearer <key>\".)\n",
		agent.Name, agent.AccountSlug, agent.OwnerEmail, url, key.Key)
	return err
}

// mcpURL is where an account's agents talk MCP.
func mcpURL(cfg config.Config, accountSlug string) string {
	return cfg.BaseURL + "/mcp/" + accountSlug
}
