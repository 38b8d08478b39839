package migrations_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/migrations"
)

func TestUpConcurrentAndIdempotent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewEmptyDSN(t)

	// Several processes starting at once: each with its own pool.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			pool, err := pgxpool.New(ctx, dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			errs[i] = migrations.Up(ctx, pool)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Up #%d: %v", i, err)
		}
	}

	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatalf("Up again: %v", err)
	}
	var applied int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM goose_db_version WHERE version_id > 0").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	files, _ := migrationFiles()
	if applied != files {
		t.Errorf("goose applied %d migrations, want %d (each once)", applied, files)
	}
	for _, table := range []string{"accounts", "users", "memberships", "agents", "agent_keys", "river_job"} {
		var ok bool
		if err := pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&ok); err != nil || !ok {
			t.Errorf("table %s missing (%v)", table, err)
		}
	}
}

func TestTemplateHasSchema(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM river_migration").Scan(&n); err != nil || n == 0 {
		t.Fatalf("river migrations in a pgtest database: %d (%v)", n, err)
	}
}

func TestFingerprint(t *testing.T) {
	a, b := migrations.Fingerprint(), migrations.Fingerprint()
	if a != b || len(a) != 64 {
		t.Fatalf("Fingerprint not a stable SHA-256 hex: %q, %q", a, b)
	}
}
