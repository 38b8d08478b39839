// Package pgtest gives each test a PostgreSQL database of its own, cloned from
// a template database that holds the migrated schema, and drops it when the
// test ends. Tests using it may run in parallel, in one test binary or many.
//
// The server is TEST_DATABASE_URL (a superuser, or a role that may create
// databases), by default the local PostgreSQL with trust auth:
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable.
//
// The template is named after migrations.Fingerprint, so a change to the
// migrations builds a new one; old templates are left in place (drop them
// with `DROP DATABASE taasky_tmpl_…` when you like). It must not be used
// outside tests.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultDSN is the server used when TEST_DATABASE_URL is unset.
const DefaultDSN = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// New returns a pool to a new, migrated database of the test's own. The pool
// is closed and the database dropped when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := NewDSN(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	t.Cleanup(pool.Close) // runs before NewDSN's drop
	return pool
}

// NewDSN is New for tests that open their own connections (a process under
// test): it returns the connection string of a new, migrated database that
// is dropped, connections and all, when the test ends.
func NewDSN(t testing.TB) string {
	t.Helper()
	return newDatabase(t, true)
}

// NewEmptyDSN returns the connection string of a new empty database (no
// migrations applied), dropped when the test ends: for testing migrations.
func NewEmptyDSN(t testing.TB) string {
	t.Helper()
	return newDatabase(t, false)
}

// BaseDSN is the server's connection string: TEST_DATABASE_URL or DefaultDSN.
func BaseDSN() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return DefaultDSN
}

// WithDatabase returns dsn (a URL or keyword/value connection string) with
// its database replaced by name.
func WithDatabase(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			u.Path = "/" + name
			u.RawPath = ""
			return u.String()
		}
	}
	return dsn + " dbname=" + name // a later key wins
}

func newDatabase(t testing.TB, migrated bool) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := BaseDSN()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to PostgreSQL (start it, or set TEST_DATABASE_URL): %v", err)
	}
	defer admin.Close(context.Background())

	name := "taasky_t_" + randomHex(8)
	create := "CREATE DATABASE " + ident(name)
	if migrated {
		tmpl, err := ensureTemplate(ctx, t, admin, base)
		if err != nil {
			t.Fatalf("pgtest: template database: %v", err)
		}
		create += " TEMPLATE " + ident(tmpl)
	}
	if err := execRetry(ctx, admin, create); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, base, name); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return WithDatabase(base, name)
}

func dropDatabase(ctx context.Context, base, name string) error {
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer admin.Close(context.Background())
	_, err = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
	return err
}

// execRetry runs sql, retrying while a database it names is still in use by
// other sessions (a closed pool's connections linger a moment on the server).
func execRetry(ctx context.Context, conn *pgx.Conn, sql string) error {
	for attempt := 1; ; attempt++ {
		_, err := conn.Exec(ctx, sql)
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || attempt == 20 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 25 * time.Millisecond):
		}
	}
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}

// LockWaits counts the sessions of pool's database that wait for a lock one
// of its transactions holds: on a table, a row (its tuple or its writer's
// transaction) or an advisory key. A test that holds a lock polls it to know
// that what it started has reached that lock.
//
// Other lock waits are left out: they are not the test's, and come and go
// at any moment. A commit that sent a NOTIFY waits for the notifying commits
// before it, in every database of the server (Lock: object), so another
// test's notifications made a session of this database look as if it waited
// for the test's lock; so do two inserts extending one table at once (Lock:
// extend).
func LockWaits(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'
		AND wait_event IN ('relation', 'tuple', 'transactionid', 'advisory')`).Scan(&n)
	return n, err
}

// Hold is a transaction on a connection of a test's own that holds a lock
// (a table locked, rows selected FOR UPDATE), so that what the test runs
// next waits for it at a known point, whatever the timing.
type Hold struct {
	t    testing.TB
	pool *pgxpool.Pool
	tx   pgx.Tx
}

// HoldLock runs sql (with args) in a transaction of a pool of its own on
// pool's database, and keeps the transaction open until Release or the
// test's end.
func HoldLock(t testing.TB, pool *pgxpool.Pool, sql string, args ...any) *Hold {
	t.Helper()
	ctx := context.Background()
	side, err := pgxpool.New(ctx, pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	tx, err := side.Begin(ctx)
	if err == nil {
		_, err = tx.Exec(ctx, sql, args...)
	}
	if err != nil {
		side.Close()
		t.Fatalf("holding %q: %v", sql, err)
	}
	h := &Hold{t: t, pool: side, tx: tx}
	t.Cleanup(func() { _ = tx.Rollback(ctx); side.Close() })
	return h
}

// Waiting is how many statements of the database wait for a lock
// (LockWaits).
func (h *Hold) Waiting() int {
	h.t.Helper()
	n, err := LockWaits(context.Background(), h.pool)
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// WaitFor returns once n statements wait for a lock, and fails the test
// (naming what) if they do not within 10 seconds.
func (h *Hold) WaitFor(n int, what string) {
	h.t.Helper()
	h.WaitForOr(n, func() bool { return false }, what)
}

// WaitForOr is WaitFor that also returns once done does: what the test
// started may finish without waiting for the hold.
func (h *Hold) WaitForOr(n int, done func() bool, what string) {
	h.t.Helper()
	for end := time.Now().Add(10 * time.Second); !done() && h.Waiting() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			h.t.Fatalf("%s: %d statements wait for a lock, want %d", what, h.Waiting(), n)
		}
	}
}

// Release ends the hold: what waited goes on.
func (h *Hold) Release() {
	h.t.Helper()
	if err := h.tx.Rollback(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

// Outage makes pool's database go away as a restart or a failover does:
// no new connection is accepted (ALLOW_CONNECTIONS false: a dial is
// refused) and every session on it is ended (pg_terminate_backend: a
// statement under way, or the next one on an idle connection, fails with
// 57P01). back undoes it: connections are accepted again. It is undone
// when the test ends too.
func Outage(t testing.TB, pool *pgxpool.Pool) (back func()) {
	t.Helper()
	db := pool.Config().ConnConfig.Database
	admin := func(sql string, args ...any) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, BaseDSN())
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		_, err = conn.Exec(ctx, sql, args...)
		return err
	}
	if err := admin("ALTER DATABASE " + ident(db) + " WITH ALLOW_CONNECTIONS false"); err != nil {
		t.Fatalf("pgtest: outage: %v", err)
	}
	if err := admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, db); err != nil {
		t.Fatalf("pgtest: outage: %v", err)
	}
	var once sync.Once
	back = func() {
		once.Do(func() {
			if err := admin("ALTER DATABASE " + ident(db) + " WITH ALLOW_CONNECTIONS true"); err != nil {
				t.Errorf("pgtest: end of the outage: %v", err)
			}
		})
	}
	t.Cleanup(back)
	return back
}

// StatementTimeout sets pool's database's statement_timeout (an operator's
// bound, ALTER DATABASE … SET) to d and resets the pool, so that every
// connection it opens from now on has it.
func StatementTimeout(t testing.TB, pool *pgxpool.Pool, d time.Duration) {
	t.Helper()
	_, err := pool.Exec(context.Background(), "ALTER DATABASE "+ident(pool.Config().ConnConfig.Database)+
		" SET statement_timeout = "+strconv.FormatInt(d.Milliseconds(), 10))
	if err != nil {
		t.Fatalf("pgtest: statement_timeout: %v", err)
	}
	pool.Reset()
}
