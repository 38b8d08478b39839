package main

import (
	"context"
	"fmt"
	"io"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

// demoAgent is a demo account's agent with a key fresh from this start.
type demoAgent struct {
	account, owner, name, key string
}

// ensureDemo makes sure the two demo accounts and their agents exist and
// issues each agent a new key (older keys keep working).
func ensureDemo(ctx context.Context, accounts *app.Accounts) ([]demoAgent, error) {
	demos := []demoAgent{
		{account: "demo-a", owner: "alice@example.test", name: "Alice's agent"},
		{account: "demo-b", owner: "bob@example.test", name: "Bob's agent"},
	}
	for i, d := range demos {
		_, err := accounts.AccountBySlug(ctx, d.account)
		if app.ErrorCodeOf(err) == app.ErrNotFound {
			_, err = accounts.CreateAccount(ctx, d.account, "Demo "+d.account[len(d.account)-1:], d.owner)
		}
		if err != nil && app.ErrorCodeOf(err) != app.ErrConflict { // conflict: another dev made it
			return nil, fmt.Errorf("demo account %s: %w", d.account, err)
		}
		agents, err := accounts.ListAgents(ctx, d.account)
		if err != nil {
			return nil, err
		}
		var key app.NewAgentKey
		for _, a := range agents {
			if a.Name == d.name {
				key, err = accounts.IssueAgentKey(ctx, d.account, a.ID)
			}
		}
		if key.Key == "" && err == nil {
			_, key, err = accounts.CreateAgent(ctx, d.account, d.name, d.owner)
		}
		if err != nil {
			return nil, fmt.Errorf("demo agent of %s: %w", d.account, err)
		}
		demos[i].key = key.Key
	}
	return demos, nil
}

// printDevBanner tells the person at the terminal what to open.
func printDevBanner(w io.Writer, cfg config.Config, dbDesc string, demos []demoAgent) {
	fmt.Fprintf(w, "\nTaasky is running (dev). Database: %s\n\n", dbDesc)
	fmt.Fprintf(w, "  Dashboard: %s/\n\n", cfg.BaseURL)
	for _, d := range demos {
		fmt.Fprintf(w, "  %s (owner %s), agent %q\n", d.account, d.owner, d.name)
		fmt.Fprintf(w, "    MCP URL: %s\n", mcpURL(cfg, d.account))
		fmt.Fprintf(w, "    Key:     %s\n\n", d.key)
	}
	fmt.Fprintf(w, "Give each agent its MCP URL and key (header \"Authorization: Bearer <key>\").\nA new key is issued at each start; older ones keep working. Stop with Ctrl-C.\n")
}
