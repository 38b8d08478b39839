package main

import (
	"context"
	"fmt"
	"io"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

// runAccountOperator is `taasky account operator`.
func runAccountOperator(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("account operator", "Flags a member of an account as an operator: once signed in, they see the\njob queue (River UI) at {BASE_URL}/admin/jobs. --off removes the flag.", stdout)
	slug := cmd.String("account", "", "the account's `slug`")
	email := cmd.String("email", "", "the member's `email` address")
	off := cmd.Bool("off", false, "remove the operator flag instead")
	if err := cmd.parse(args, "account", "email"); err != nil {
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
	if err := app.NewAccounts(pool).SetOperator(ctx, *slug, *email, !*off); err != nil {
		return err
	}
	if *off {
		_, err = fmt.Fprintf(stdout, "%s is no longer an operator through %s.\n", *email, *slug)
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s is an operator: the job queue is at %s/admin/jobs once they sign in.\n", *email, cfg.BaseURL)
	return err
}
