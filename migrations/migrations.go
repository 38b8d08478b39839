// Package migrations holds Taasky's database schema as numbered SQL files
// (NNNNN_name.sql, embedded in the binary and applied in order with
// pressly/goose; 00019 is Go, see 00019_room_chain.go) and applies River's own tables with rivermigrate.
//
// A migration, once released, is never edited to change what it makes: add
// a new one. How it applies may change when the schema it leaves is the
// same (goose records the versions applied, not the files' contents), as
// 00025-00033 were made safe on a populated database. Up is the only way
// the schema changes; it is safe to run from several processes at once.
package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed *.sql
var sqlFiles embed.FS

// lockKey is the advisory lock that serializes Up across processes (the
// first 8 bytes of SHA-256("taasky migrations")).
const lockKey int64 = 0x4035_2a98_44f4_16e2

// lockWait bounds how long a migration waits for a table's lock. An
// ALTER TABLE waits for every transaction already on its table (a pg_dump
// holds one for its whole length), and every query on that table, every
// move included, queues behind the waiting ALTER. So each migration runs with
// lock_timeout: it gives up after timeout, its transaction rolled back and the
// queue released, and is tried again after pause, tries times in all.
type lockWait struct {
	timeout, pause time.Duration
	tries          int
}

// lockPoll is how often a process waiting for another's Up tries the
// advisory lock again.
const lockPoll = 200 * time.Millisecond

// migrationLockWait: about two minutes of tries, each stalling the table's
// queries for at most two seconds.
var migrationLockWait = lockWait{timeout: 2 * time.Second, pause: 3 * time.Second, tries: 24}

// Up brings the database behind pool to the newest schema: Taasky's tables,
// then River's. Concurrent callers (several processes starting at once) wait
// for each other on a session advisory lock held on a connection of its own,
// so the pool needs only one free connection.
func Up(ctx context.Context, pool *pgxpool.Pool) error {
	return up(ctx, pool, func(db *sql.DB) (*goose.Provider, error) { return NewProvider(db, sqlFiles) }, migrationLockWait)
}

func up(ctx context.Context, pool *pgxpool.Pool, newProvider func(*sql.DB) (*goose.Provider, error), wait lockWait) error {
	lockConn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("migrate: connect: %w", err)
	}
	// Closing the session releases its advisory lock, even if ctx is done.
	defer lockConn.Close(context.WithoutCancel(ctx))
	// Polled, not waited for in pg_advisory_lock: a query waiting holds its
	// snapshot, and an index built CONCURRENTLY (00029) waits for every
	// snapshot older than it, so the holder's build would wait for the
	// waiters, who wait for the holder, for good.
	for {
		var got bool
		if err := lockConn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&got); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		if got {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("migrate: lock: %w", ctx.Err())
		case <-time.After(lockPoll):
		}
	}

	// The migrations' own connections, with the lock_timeout.
	cfg := pool.Config()
	cfg.MaxConns, cfg.MinConns = 2, 0
	// SET, not a startup parameter: PgBouncer refuses a connection that
	// sends one it does not know.
	cfg.ConnConfig.AfterConnect = setLockTimeout(cfg.ConnConfig.AfterConnect, wait.timeout)
	migPool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("migrate: connect: %w", err)
	}
	defer migPool.Close()

	db := stdlib.OpenDBFromPool(migPool)
	defer db.Close()
	provider, err := newProvider(db)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	err = retryLocked(ctx, wait, func() (string, error) {
		_, err := provider.Up(ctx)
		if partial := (*goose.PartialError)(nil); errors.As(err, &partial) {
			return fmt.Sprintf("migration %05d", partial.Failed.Source.Version), err
		}
		return "a migration", err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(migPool), &rivermigrate.Config{
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	err = retryLocked(ctx, wait, func() (string, error) {
		_, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return "River's migration", err
	})
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	return nil
}

// retryLocked runs apply until it succeeds, fails otherwise than by
// lock_timeout, or has waited wait.tries times. apply names what it ran.
func retryLocked(ctx context.Context, wait lockWait, apply func() (what string, err error)) error {
	for try := 1; ; try++ {
		what, err := apply()
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55P03" { // lock_not_available
			return err
		}
		if try == wait.tries {
			return fmt.Errorf("%s waited %d times for a lock on a table it changes (lock_timeout %s each): "+
				"a long transaction holds that table (see pg_stat_activity: a dump, or a stuck session); "+
				"end it or run taasky migrate again later", what, try, wait.timeout)
		}
		slog.Warn("migrate: gave up waiting for a table's lock; trying again",
			"what", what, "lock_timeout", wait.timeout.String(), "try", try, "of", wait.tries)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait.pause):
		}
	}
}

// NewProvider is goose's provider of the migrations in fsys (the embedded
// files, or a test's copy of them) and of the ones written in Go.
func NewProvider(db *sql.DB, fsys fs.FS) (*goose.Provider, error) {
	return goose.NewProvider(goose.DialectPostgres, db, fsys,
		goose.WithDisableGlobalRegistry(true), goose.WithGoMigrations(roomChain()))
}

// Fingerprint identifies the schema Up produces: a hash of every embedded
// migration and of River's newest migration version. Test harnesses name
// their template databases with it.
func Fingerprint() string {
	h := sha256.New()
	err := fs.WalkDir(sqlFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(sqlFiles, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		panic("migrations: reading the embedded files: " + err.Error())
	}
	fmt.Fprintf(h, "%s\x00", roomChainVersion)
	migrator, err := rivermigrate.New(riverpgxv5.New(nil), nil)
	if err != nil {
		panic("migrations: river: " + err.Error())
	}
	versions := migrator.AllVersions()
	fmt.Fprintf(h, "river\x00%d", versions[len(versions)-1].Version)
	return hex.EncodeToString(h.Sum(nil))
}

// setLockTimeout is AfterConnect, then a SET of lock_timeout to d.
func setLockTimeout(next func(context.Context, *pgconn.PgConn) error, d time.Duration) func(context.Context, *pgconn.PgConn) error {
	sql := "SET lock_timeout = " + strconv.FormatInt(d.Milliseconds(), 10)
	return func(ctx context.Context, c *pgconn.PgConn) error {
		if next != nil {
			if err := next(ctx, c); err != nil {
				return err
			}
		}
		_, err := c.Exec(ctx, sql).ReadAll()
		return err
	}
}
