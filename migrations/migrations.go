// Package migrations holds Taasky's database schema as numbered SQL files
// (NNNNN_name.sql, embedded in the binary and applied in order with
// pressly/goose; 00019 is Go, see 00019_room_chain.go) and applies River's own tables with rivermigrate.
//
// A migration, once released, is never edited: add a new one. Up is the only
// way the schema changes; it is safe to run from several processes at once.
package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5"
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

// Up brings the database behind pool to the newest schema: Taasky's tables,
// then River's. Concurrent callers (several processes starting at once) wait
// for each other on a session advisory lock held on a connection of its own,
// so the pool needs only one free connection.
func Up(ctx context.Context, pool *pgxpool.Pool) error {
	lockConn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return fmt.Errorf("migrate: connect: %w", err)
	}
	// Closing the session releases its advisory lock, even if ctx is done.
	defer lockConn.Close(context.WithoutCancel(ctx))
	if _, err := lockConn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}

	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := NewProvider(db, sqlFiles)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := provider.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrate river: %w", err)
	}
	return nil
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
