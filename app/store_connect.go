package app

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A Setting is a PostgreSQL run-time parameter a connection sets for its
// session.
type Setting struct{ Name, Value string }

// SetOnConnect returns a pgconn AfterConnect hook that SETs settings on
// each new connection (one round trip, then never again for the
// connection's life), after next (if any). Settings are SET rather than
// sent as startup parameters because a pooler in front of PostgreSQL may
// refuse the connection for a startup parameter it does not know
// (PgBouncer: "unsupported startup parameter: jit", unless it is listed in
// ignore_startup_parameters, which then drops it unset); a SET goes
// through to the session like any statement.
func SetOnConnect(next func(context.Context, *pgconn.PgConn) error, settings ...Setting) func(context.Context, *pgconn.PgConn) error {
	if len(settings) == 0 {
		return next
	}
	stmts := make([]string, len(settings))
	for i, s := range settings {
		stmts[i] = "SET " + pgx.Identifier{s.Name}.Sanitize() + " = '" + strings.ReplaceAll(s.Value, "'", "''") + "'"
	}
	sql := strings.Join(stmts, "; ")
	return func(ctx context.Context, c *pgconn.PgConn) error {
		if next != nil {
			if err := next(ctx, c); err != nil {
				return err
			}
		}
		if _, err := c.Exec(ctx, sql).ReadAll(); err != nil {
			return fmt.Errorf("set the session's settings: %w", err)
		}
		return nil
	}
}

// sessionProbeClass is the first key ("taap") of the advisory lock
// SessionsShared takes, apart from the leases' (leaseLockClass).
const sessionProbeClass = 0x74616170

// SessionsShared reports whether two connections of pool may run their
// statements in one PostgreSQL session: a pooler in transaction or
// statement mode in front of PostgreSQL (PgBouncer's pool_mode =
// transaction), which hands a server session to whichever client has a
// statement to run. Taasky keeps state in sessions (its LISTEN, the
// workers' lease and the migrations' lock, pgx's prepared statements), so
// it must not run there. One connection takes a session advisory lock,
// the other tries it: in sessions of their own the try fails; a pooler
// that lent the other the same session (it reuses the session it just got
// back) grants it. Simple protocol: no prepared statement to collide.
func SessionsShared(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	a, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer a.Release()
	// The other is a connection of its own, not the pool's: a pool of one
	// (DATABASE_URL's pool_max_conns=1) would wait for a forever.
	b, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer b.Close(context.WithoutCancel(ctx))
	var kb [4]byte
	_, _ = rand.Read(kb[:])
	key := int32(binary.BigEndian.Uint32(kb[:]))
	unlock := func(c interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}) {
		_, _ = c.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, $2)`, pgx.QueryExecModeSimpleProtocol, int32(sessionProbeClass), key)
	}
	if _, err := a.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, pgx.QueryExecModeSimpleProtocol, int32(sessionProbeClass), key); err != nil {
		return false, fmt.Errorf("check the sessions: %w", err)
	}
	defer unlock(a)
	var got bool
	if err := b.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, pgx.QueryExecModeSimpleProtocol, int32(sessionProbeClass), key).Scan(&got); err != nil {
		return false, fmt.Errorf("check the sessions: %w", err)
	}
	if got {
		unlock(b)
	}
	return got, nil
}
