package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/taasky/taasky/internal/config"
)

// runCheck is `taasky check`: the consistency checker. It replays every
// room's log through the protocol and compares the result with the stored
// room; any difference is printed and makes the command fail.
func runCheck(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("check", "Replays every room's log and compares it with the stored room. Exits non-zero on any difference.", stdout)
	if err := cmd.parse(args); err != nil {
		return err
	}
	return onServer(ctx, getenv, func(srv *server) error { return check(ctx, srv, stdout) })
}

// onServer runs an operator's command that uses SECRET_KEY (limits and
// hashes are sealed or keyed with it) on the installation's database,
// with no web and no worker, once the key is checked to be the
// installation's.
func onServer(ctx context.Context, getenv func(string) string, do func(*server) error) error {
	cfg, err := loadConfig(getenv, config.RoleWorker)
	if err != nil {
		return err
	}
	srv, err := openServer(ctx, cfg, slog.New(slog.DiscardHandler), false, false)
	if err != nil {
		return err
	}
	defer srv.close()
	return do(srv)
}

func check(ctx context.Context, srv *server, stdout io.Writer) error {
	rep, err := srv.rooms.Check(ctx)
	if err != nil {
		return err
	}
	for _, d := range rep.Differences {
		fmt.Fprintln(stdout, d)
	}
	fmt.Fprintf(stdout, "%d rooms checked, %d differences\n", rep.Rooms, len(rep.Differences))
	if len(rep.Differences) > 0 {
		return fmt.Errorf("%d rooms differ from the replay of their log", len(rep.Differences))
	}
	return nil
}
