package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/taasky/taasky/internal/config"
)

// runServe is `taasky serve`: production, configured by the environment.
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := newCommand("serve", "Runs the service, configured by the environment (see README.md). It migrates\nthe database first. Run any number of these against one database.", stdout)
	web := cmd.Bool("web", true, "serve the dashboard and the MCP endpoint on LISTEN_ADDR (false: only /healthz, /readyz and /metrics there)")
	worker := cmd.Bool("worker", true, "work the River jobs (notifications, expiry, deadlines)")
	if err := cmd.parse(args); err != nil {
		return err
	}
	if !*web && !*worker {
		return cmd.fail("--web=false and --worker=false leave nothing to run")
	}
	var role config.Role
	if *web {
		role |= config.RoleWeb
	}
	if *worker {
		role |= config.RoleWorker
	}
	cfg, err := loadConfig(getenv, role)
	if err != nil {
		return err
	}
	log := newLogger(stderr, true)
	slog.SetDefault(log) // a line through slog's or the log package's default comes out in the same form
	log.Info("starting", "web", *web, "worker", *worker, "config", cfg)
	if *worker && cfg.SMTP == nil {
		log.Warn("SMTP_URL is not set: mail is kept in the dev outbox, not sent")
	}
	if err := startPprof(ctx, cfg.PprofAddr, log); err != nil {
		return fmt.Errorf("PPROF_ADDR: %w", err)
	}
	srv, err := openServer(ctx, cfg, log, *web, *worker)
	if err != nil {
		return err
	}
	defer srv.close()
	fiberApp, err := srv.webApp(ctx)
	if err != nil {
		return err
	}
	return srv.serve(ctx, fiberApp, nil)
}
