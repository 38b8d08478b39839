package migrations_test

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	"github.com/taasky/taasky/migrations"
)

// TestIndexBuildsWaitForADumpWithoutStallingMoves: 00029's indexes on
// parties and rooms are built CONCURRENTLY, so while a dump's transaction
// is open the build waits for it (it cannot finish before every older
// snapshot ends) and moves still write both tables; once the dump ends,
// the rest of the migrations apply and every index is valid. Built plainly
// in one transaction, they held parties' and rooms' writes for the build
// and deadlocked with opens (rooms, then parties); built concurrently under
// taasky migrate's lock_timeout, the build was thrown away at each try.
func TestIndexBuildsWaitForADumpWithoutStallingMoves(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, provider := emptyDatabase(t)
	if _, err := provider.UpTo(ctx, 28); err != nil {
		t.Fatal(err)
	}

	dump, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer dump.Rollback(context.WithoutCancel(ctx))
	if _, err := dump.Exec(ctx, "SELECT count(*) FROM rooms"); err != nil {
		t.Fatal(err)
	}
	// A write after the dump's snapshot, as a busy database has many: the
	// dump's snapshot is then older than the build's.
	if _, err := pool.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		done <- migrations.UpWaiting(ctx, pool, func(db *sql.DB) (*goose.Provider, error) {
			return migrations.NewProvider(db, os.DirFS("."))
		}, 100*time.Millisecond, 10*time.Millisecond, 3)
	}()

	// The build is under way and waits for the dump.
	waiting := false
	for range 400 {
		select {
		case err := <-done:
			t.Fatalf("migrate returned while a dump was open: %v; want it waiting in 00029's index build", err)
		case <-time.After(25 * time.Millisecond):
		}
		if err := pool.QueryRow(ctx, `SELECT count(*) > 0 FROM pg_stat_activity
			WHERE datname = current_database() AND query LIKE 'CREATE INDEX CONCURRENTLY parties_person_email %' AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
	}
	if !waiting {
		t.Fatal("00029's index build not seen waiting for the dump after 10 s")
	}
	// A move meanwhile: an open writes rooms, then parties (what a plain
	// CREATE INDEX's SHARE lock refuses).
	move, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SET LOCAL lock_timeout = '5s'", "LOCK TABLE rooms IN ROW EXCLUSIVE MODE", "LOCK TABLE parties IN ROW EXCLUSIVE MODE"} {
		if _, err := move.Exec(ctx, q); err != nil {
			t.Fatalf("a move's %q while the indexes are built: %v", q, err)
		}
	}
	if err := move.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// The build keeps waiting past its lock_timeout's tries (3 of 100 ms):
	// thrown away, it would start again from the first row at each try.
	select {
	case err := <-done:
		t.Fatalf("migrate returned while a dump was open: %v; want it waiting in 00029's index build", err)
	case <-time.After(time.Second):
	}
	if err := dump.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("migrate after the dump ended: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("migrate still running 60 s after the dump ended")
	}
	rows, err := pool.Query(ctx, "SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid OR NOT indisready")
	if err != nil {
		t.Fatal(err)
	}
	invalid, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(invalid) > 0 {
		t.Errorf("indexes left invalid: %v", invalid)
	}
}
