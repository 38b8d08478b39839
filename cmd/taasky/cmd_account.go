package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

// runAccountCreate is `taasky account create`.
func runAccountCreate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("account create", "Creates an account and makes --owner-email its owner. The owner joins it\nat their first login with that (verified) email address.", stdout)
	slug := cmd.String("slug", "", "the account's `slug`, used in URLs: 3–40 of a–z, 0–9 and '-'")
	name := cmd.String("name", "", "the account's display `name`, 1–80 characters")
	owner := cmd.String("owner-email", "", "the owner's `email` address")
	asJSON := cmd.Bool("json", false, "print the result as JSON")
	if err := cmd.parse(args, "slug", "name", "owner-email"); err != nil {
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
	acct, err := app.NewAccounts(pool).CreateAccount(ctx, *slug, *name, *owner)
	if err != nil {
		return err
	}
	dashboard := cfg.BaseURL + "/"
	if *asJSON {
		return json.NewEncoder(stdout).Encode(map[string]any{
			"id": acct.ID, "slug": acct.Slug, "name": acct.Name, "dashboard_url": dashboard,
		})
	}
	_, err = fmt.Fprintf(stdout, "Created account %s (%s). Its owner logs in at %s\n", acct.Slug, acct.Name, dashboard)
	return err
}
