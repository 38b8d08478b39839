package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

// runDev is `taasky dev`: the whole service on this machine with nothing set
// up: a database found or started, a secret key kept for next time, demo
// accounts with agents, and the URLs to open printed.
func runDev(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := newCommand("dev", "Runs all of Taasky on this machine for development, with nothing to set up.\nEvery setting of 'taasky serve' may still be given; none is required.", stdout)
	dbMode := cmd.String("db", "auto", "which `database`: auto (DATABASE_URL, else a local PostgreSQL, else a private one), local, or private")
	if err := cmd.parse(args); err != nil {
		return err
	}
	switch *dbMode {
	case "auto", "local", "private":
	default:
		return cmd.fail("--db must be auto, local or private (got %q)", *dbMode)
	}
	if *dbMode != "auto" && getenv("DATABASE_URL") != "" {
		return cmd.fail("--db=%s and DATABASE_URL both choose the database; unset one", *dbMode)
	}
	log := newLogger(stderr, false)
	slog.SetDefault(log) // a line through slog's or the log package's default comes out in the same form

	db, err := devDatabase(ctx, *dbMode, getenv, log)
	if err != nil {
		return err
	}
	if db.stop != nil {
		defer func() {
			if err := db.stop(); err != nil {
				log.Warn("stopping the private PostgreSQL", "err", err)
			}
		}()
	}
	secret, secretSource, err := devSecretKey(getenv)
	if err != nil {
		return err
	}
	vapidEnv, vapidGenerated := devVAPIDEnv(getenv, secret)
	env := func(name string) string {
		switch name {
		case "DATABASE_URL":
			return db.dsn
		case "SECRET_KEY":
			return secret
		}
		return vapidEnv(name)
	}
	cfg, err := loadConfig(env, config.RoleDev|config.RoleWeb|config.RoleWorker)
	if err != nil {
		return err
	}
	log.Info("starting taasky dev", "config", cfg, "secret_key", secretSource)
	if err := startPprof(ctx, cfg.PprofAddr, log); err != nil {
		return fmt.Errorf("PPROF_ADDR: %w", err)
	}
	srv, err := openServer(ctx, cfg, log, true, true)
	if errors.Is(err, app.ErrSecretKeyMismatch) {
		// The database outlived the key dev made for it (another home, the
		// file deleted): say how to go on with dev's own words.
		return fmt.Errorf("%w; for taasky dev: %s was set up with another key than this one (%s): "+
			"set SECRET_KEY to that key, or drop that database to start over", err, db.desc, secretSource)
	}
	if err != nil {
		return err
	}
	defer srv.close()
	demos, err := ensureDemo(ctx, srv.accounts)
	if err != nil {
		return err
	}
	web, err := srv.webApp(ctx)
	if err != nil {
		return err
	}
	if cfg.SMTP == nil {
		mountOutbox(web, srv.deps)
	}
	return srv.serve(ctx, web, func(string) {
		printDevBanner(stdout, cfg, db.desc, demos)
		printNotifyBanner(stdout, cfg, vapidGenerated)
	})
}

// devDatabase picks taasky dev's database: DATABASE_URL, else a local
// PostgreSQL that answers, else a private one (per mode).
func devDatabase(ctx context.Context, mode string, getenv func(string) string, log *slog.Logger) (devDB, error) {
	if v := getenv("DATABASE_URL"); v != "" {
		return devDB{dsn: v, desc: describeDSN(v) + " (DATABASE_URL)"}, nil
	}
	if mode != "private" {
		dsn, err := findLocalPostgres(ctx, localCandidates(getenv), devDatabaseName)
		if err == nil {
			return devDB{dsn: dsn, desc: "local PostgreSQL, " + describeDSN(dsn)}, nil
		}
		if mode == "local" {
			return devDB{}, fmt.Errorf("dev: no local PostgreSQL answers: %w", err)
		}
		log.Info("no local PostgreSQL answers; trying a private one", "err", err)
	}
	return startPrivatePostgres(getenv, log, io.Discard, mode == "private")
}
