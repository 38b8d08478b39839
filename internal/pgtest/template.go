package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/migrations"
)

// templateLockKey serializes template builds across test binaries (the first
// 8 bytes of SHA-256("taasky test templates")).
const templateLockKey int64 = -0x6742_0558_ef9c_7491

// ensureTemplate returns the name of the migrated template database for the
// current migrations, building it first if no process has yet. A template is
// built under another name and renamed when complete, so a half-built one is
// never cloned; it refuses connections afterwards, so cloning never finds it
// in use.
func ensureTemplate(ctx context.Context, t testing.TB, admin *pgx.Conn, base string) (string, error) {
	name := "taasky_tmpl_" + migrations.Fingerprint()[:8]
	exists := func() (bool, error) {
		var ok bool
		err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
		return ok, err
	}
	if ok, err := exists(); err != nil || ok {
		return name, err
	}

	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", err
	}
	defer admin.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", templateLockKey) // closing the session releases it too
	if ok, err := exists(); err != nil || ok {
		return name, err // another process built it while we waited
	}

	start := time.Now()
	build := name + "_build"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(build)+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(build)); err != nil {
		return "", err
	}
	pool, err := pgxpool.New(ctx, WithDatabase(base, build))
	if err != nil {
		return "", err
	}
	err = migrations.Up(ctx, pool)
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("migrate %s: %w", build, err)
	}
	if err := execRetry(ctx, admin, "ALTER DATABASE "+ident(build)+" RENAME TO "+ident(name)); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident(name)+" WITH ALLOW_CONNECTIONS false"); err != nil {
		return "", err
	}
	t.Logf("pgtest: built template database %s in %v", name, time.Since(start).Round(time.Millisecond))
	return name, nil
}
