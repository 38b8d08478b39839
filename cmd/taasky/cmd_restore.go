package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// runAfterRestore is `taasky after-restore`: what serve and dev do by
// themselves on a database that is not the one the installation ran on,
// for a backup restored in place (point-in-time recovery or a base backup
// on the same server keep the database's identity).
func runAfterRestore(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("after-restore", "Makes a database restored from a backup safe to serve: every id sequence skips\n"+
		"past what the time lost after the backup can have handed out (a new room must not\n"+
		"take the id, so the receipt number, of a room agreed after the backup point), and\n"+
		"every session ends, and every pending confirmation is asked again (an answer\n"+
		"given after the backup point was lost). serve and dev do it by themselves on a restored copy (a new\n"+
		"database or server); run it, before any process starts, after a restore that kept\n"+
		"the database in place (point-in-time recovery). See docs/operations.md.", stdout)
	point := cmd.String("backup-point", "", "when the backup was taken (RFC 3339; e.g. the recovery target time), if earlier than the newest moment in the data")
	if err := cmd.parse(args); err != nil {
		return err
	}
	var given time.Time
	if *point != "" {
		var err error
		if given, err = time.Parse(time.RFC3339, *point); err != nil {
			return cmd.fail("--backup-point: want an RFC 3339 time such as 2026-12-06T17:30:00Z, got %q", *point)
		}
	}
	return onServer(ctx, getenv, func(srv *server) error {
		r, err := app.MovePastBackup(ctx, srv.pool, time.Now(), true, given, srv.notify.svc)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "backup point %s: %d sequences skipped %d ids ahead, %d sessions ended, %d pending confirmations asked again\n",
			r.BackupPoint.UTC().Format(time.RFC3339), r.Sequences, r.Skip, r.Sessions, r.AskedAgain)
		return err
	})
}

// moveOnIfRestored is app.MovePastBackup as serve and dev start: on a
// database that is a restored copy, before any job or request, logged.
func moveOnIfRestored(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger, n *app.Notifications) error {
	r, err := app.MovePastBackup(ctx, pool, time.Now(), false, time.Time{}, n)
	if err != nil {
		return err
	}
	if r.Skip > 0 {
		log.Warn("this database is a restored copy (or a copy) of the one this installation ran on: moved past its backup point",
			"backup_point", r.BackupPoint.UTC().Format(time.RFC3339), "sequences", r.Sequences, "skipped_ids", r.Skip,
			"sessions_ended", r.Sessions, "asked_again", r.AskedAgain, "database", r.Identity, "was", r.Was)
	}
	return nil
}

// runAfterMove is `taasky after-move`: for a database that holds all the
// installation wrote but that a start would take for a restored copy (a
// pg_upgrade gives the cluster a new system identifier), it records the
// database as the installation's, moving past nothing.
func runAfterMove(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := newCommand("after-move", "Records this database as the one the installation runs on, skipping no id, ending\n"+
		"no session and asking nothing again: after a pg_upgrade to a new major version (it\n"+
		"gives the cluster a new system identifier), or a move by a dump taken after every\n"+
		"process stopped, where nothing was lost. Without it the first serve or dev takes\n"+
		"the database for a restored backup (taasky after-restore). Run it before any process\n"+
		"starts; never after a restore from a backup. See docs/operations.md.", stdout)
	if err := cmd.parse(args); err != nil {
		return err
	}
	return onServer(ctx, getenv, func(srv *server) error {
		r, err := app.KeepDatabase(ctx, srv.pool)
		if err != nil {
			return err
		}
		if r.Was == r.Identity {
			_, err = fmt.Fprintf(stdout, "database %s: already the installation's, nothing recorded\n", r.Identity)
			return err
		}
		was := r.Was
		if was == "" {
			was = "none"
		}
		_, err = fmt.Fprintf(stdout, "database %s recorded as the installation's (was %s): nothing skipped, no session ended\n", r.Identity, was)
		return err
	})
}
