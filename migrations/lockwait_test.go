package migrations_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/migrations"
)

// probeMigration adds a column to accounts: an ALTER TABLE, which waits for
// every transaction on the table.
func probeMigration(db *sql.DB) (*goose.Provider, error) {
	return goose.NewProvider(goose.DialectPostgres, db, fstest.MapFS{"90001_probe.sql": {Data: []byte(
		"-- +goose Up\nALTER TABLE accounts ADD COLUMN lock_probe int;\n-- +goose Down\nALTER TABLE accounts DROP COLUMN lock_probe;\n")}},
		goose.WithDisableGlobalRegistry(true))
}

// TestMigrationWaitsWithoutStallingItsTable: a migration behind a long
// transaction on its table (a dump's) gives up its lock wait at
// lock_timeout and tries again, so the queries queued behind it go on
// meanwhile; it applies once the transaction ends, and after its tries
// says what held it.
func TestMigrationWaitsWithoutStallingItsTable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool := pgtest.New(t)

	// A dump's transaction: it has read accounts and stays open.
	dump, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dump.Rollback(context.WithoutCancel(ctx))
	if _, err := dump.Exec(ctx, "SELECT count(*) FROM accounts"); err != nil {
		t.Fatal(err)
	}

	err = migrations.UpWaiting(ctx, pool, probeMigration, 100*time.Millisecond, 10*time.Millisecond, 3)
	if err == nil || !strings.Contains(err.Error(), "migration 90001 waited 3 times for a lock") {
		t.Fatalf("Up behind a dump: %v, want the migration named after its 3 tries", err)
	}

	done := make(chan error, 1)
	go func() {
		done <- migrations.UpWaiting(ctx, pool, probeMigration, 100*time.Millisecond, 50*time.Millisecond, 1000)
	}()
	// Queries on the table are answered while the migration waits: without
	// lock_timeout this one would queue behind the ALTER until the dump ends.
	for range 5 {
		qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var n int
		err := pool.QueryRow(qctx, "SELECT count(*) FROM accounts").Scan(&n)
		cancel()
		if err != nil {
			t.Fatalf("a query on accounts while the migration waits: %v", err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("Up returned while the dump still held its table: %v", err)
	default:
	}
	if err := dump.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Up after the dump ended: %v", err)
	}
	var has bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM information_schema.columns
		WHERE table_name = 'accounts' AND column_name = 'lock_probe')`).Scan(&has); err != nil || !has {
		t.Fatalf("the migration's column after the dump: %v (%v)", has, err)
	}
}
