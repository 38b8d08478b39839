package migrations_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/migrations"
)

// TestRecentDownsAndUpAgain: the newest migrations can be rolled back and
// applied again (an operator's way back from a bad release).
func TestRecentDownsAndUpAgain(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, err := pgxpool.New(ctx, pgtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS("."), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	column := func(table, col string) bool {
		var ok bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_name = $1 AND column_name = $2)`, table, col).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !column("party_ranks", "rank") || column("parties", "rank") || !column("rooms", "close_job_id") {
		t.Fatal("the newest schema: no party_ranks.rank, or parties.rank, or no rooms.close_job_id")
	}
	if _, err := provider.DownTo(ctx, 9); err != nil {
		t.Fatalf("down to 9: %v", err)
	}
	if column("party_ranks", "rank") || !column("parties", "rank") || !column("rooms", "lapse_job_id") {
		t.Fatal("down to 9: party_ranks kept, or parties.rank or rooms.lapse_job_id missing")
	}
	if _, err := provider.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if !column("party_ranks", "rank") || column("parties", "rank") {
		t.Fatal("up again: not the newest schema")
	}
}
