package app

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// roundTrips counts what a connection sends: each statement alone and each
// batch is one round trip.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	return ctx
}
func (r *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// TestPipeTx: a transaction that reads, then holds its writes, costs two
// round trips and commits them all; a held write that fails fails the
// commit and nothing of the transaction stays; a statement after held
// writes sees them; a rollback drops them, and what was sent; QueryRow
// says pgx.ErrNoRows as pgx does, and the transaction goes on; a failed
// statement fails the rest and the commit; an argument pipeTx cannot
// encode, after a write was sent, leaves nothing; a connection lost before
// the commit leaves nothing; a locked row stays locked from one round trip
// to the next.
func TestPipeTx(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	trips := &roundTrips{}
	cfg.ConnConfig.Tracer = trips
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE pipe (id int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	run := func(fn func(tx *pipeTx) error) error {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Release()
		tx := &pipeTx{conn: conn}
		if err := fn(tx); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		return tx.Commit(ctx)
	}
	ids := func() (out []int) {
		rows, _ := pool.Query(ctx, `SELECT id FROM pipe ORDER BY id`)
		out, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	writes := func(ids ...int) *pgx.Batch {
		b := &pgx.Batch{}
		for _, id := range ids {
			b.Queue(`INSERT INTO pipe (id) VALUES ($1)`, id)
		}
		return b
	}

	before := trips.n.Load()
	err = run(func(tx *pipeTx) error {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pipe`).Scan(&n); err != nil {
			return err
		}
		return tx.hold(writes(1, 2))
	})
	if err != nil || trips.n.Load()-before != 2 {
		t.Fatalf("read and write: %v, %d round trips, want 2", err, trips.n.Load()-before)
	}
	if got := ids(); len(got) != 2 {
		t.Fatalf("committed %v, want [1 2]", got)
	}

	err = run(func(tx *pipeTx) error { return tx.hold(writes(3, 1)) })
	if err == nil || len(ids()) != 2 {
		t.Fatalf("a held write that fails: %v, rows %v", err, ids())
	}

	err = run(func(tx *pipeTx) error {
		if err := tx.hold(writes(4)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pipe WHERE id = 4`).Scan(&n); err != nil || n != 1 {
			t.Errorf("a statement after held writes saw %d of them (%v)", n, err)
		}
		var none int
		if err := tx.QueryRow(ctx, `SELECT id FROM pipe WHERE id = 99`).Scan(&none); !errors.Is(err, pgx.ErrNoRows) {
			t.Errorf("no row: %v", err)
		}
		return tx.hold(writes(5))
	})
	if got := ids(); err != nil || len(got) != 4 {
		t.Fatalf("after reads between writes: %v, rows %v", err, got)
	}

	err = run(func(tx *pipeTx) error {
		if err := tx.hold(writes(6)); err != nil {
			return err
		}
		return errors.New("changed my mind")
	})
	if got := ids(); err == nil || len(got) != 4 {
		t.Fatalf("a rolled back transaction left %v", got)
	}

	insert := func(tx *pipeTx, id int) error {
		_, err := tx.Exec(ctx, `INSERT INTO pipe (id) VALUES ($1)`, id)
		return err
	}
	err = run(func(tx *pipeTx) error {
		if err := insert(tx, 7); err != nil {
			return err
		}
		return errors.New("changed my mind after a write was sent")
	})
	if got := ids(); err == nil || len(got) != 4 {
		t.Fatalf("a rollback after a sent write left %v", got)
	}

	err = run(func(tx *pipeTx) error {
		if err := insert(tx, 8); err != nil {
			return err
		}
		if err := insert(tx, 1); err == nil {
			t.Error("a duplicate key was accepted")
		}
		if err := insert(tx, 9); err == nil {
			t.Error("a statement after a failed one ran")
		}
		return nil // the caller ignores the failure: the commit may not
	})
	if got := ids(); !errors.Is(err, pgx.ErrTxCommitRollback) || len(got) != 4 {
		t.Fatalf("a commit after a failed statement: %v, rows %v", err, got)
	}

	err = run(func(tx *pipeTx) error {
		if err := insert(tx, 10); err != nil {
			return err
		}
		return tx.hold(writes(11, 12))
	})
	if got := ids(); err != nil || len(got) != 7 {
		t.Fatalf("a sent write and held ones: %v, rows %v", err, got)
	}

	err = run(func(tx *pipeTx) error {
		if err := insert(tx, 13); err != nil {
			return err
		}
		b := &pgx.Batch{}
		b.Queue(`INSERT INTO pipe (id) VALUES ($1)`, 14)
		b.Queue(`INSERT INTO pipe (id) VALUES ($1)`, struct{ x chan int }{})
		return tx.hold(b)
	})
	if got := ids(); err == nil || len(got) != 7 {
		t.Fatalf("an argument that cannot be encoded: %v, rows %v", err, got)
	}

	err = run(func(tx *pipeTx) error {
		br := tx.SendBatch(ctx, writes(16, 17))
		if _, err := br.Exec(); err != nil {
			return err
		}
		// The batch is not read to its end: the next statement's result
		// is still its own.
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pipe WHERE id IN (16, 17)`).Scan(&n); err != nil || n != 2 {
			t.Errorf("after a batch left unread: %d rows (%v), want 2", n, err)
		}
		return nil
	})
	if got := ids(); err != nil || len(got) != 9 {
		t.Fatalf("a batch left unread: %v, rows %v", err, got)
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := &pipeTx{conn: conn}
	if err := insert(tx, 15); err != nil {
		t.Fatal(err)
	}
	_ = conn.Conn().Close(ctx) // lost before the commit
	if tx.Commit(ctx) == nil {
		t.Error("a commit on a lost connection succeeded")
	}
	conn.Release()
	if got := ids(); len(got) != 9 {
		t.Fatalf("a connection lost before the commit left %v", got)
	}
}

// TestPipeTxHoldsItsLocks: a row a pipeTx locked in one round trip stays
// locked until its commit, with no BEGIN: another transaction waits.
func TestPipeTxHoldsItsLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, conn := pipeConn(t, `CREATE TABLE pipe (id int PRIMARY KEY, n int); INSERT INTO pipe VALUES (1, 0)`)
	tx := &pipeTx{conn: conn}
	var n int
	if err := tx.QueryRow(ctx, `SELECT n FROM pipe WHERE id = 1 FOR UPDATE`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	other := func() error {
		return pgx.BeginFunc(ctx, pool, func(o pgx.Tx) error {
			if _, err := o.Exec(ctx, `SET LOCAL lock_timeout = '200ms'`); err != nil {
				return err
			}
			_, err := o.Exec(ctx, `UPDATE pipe SET n = n + 10 WHERE id = 1`)
			return err
		})
	}
	var pgErr *pgconn.PgError
	if err := other(); !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
		t.Fatalf("another transaction's write while the row is locked: %v, want a lock timeout", err)
	}
	b := &pgx.Batch{}
	b.Queue(`UPDATE pipe SET n = $1 WHERE id = 1`, n+1)
	if err := tx.hold(b); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other(); err != nil {
		t.Fatalf("after the commit: %v", err)
	}
	if err := pool.QueryRow(ctx, `SELECT n FROM pipe WHERE id = 1`).Scan(&n); err != nil || n != 11 {
		t.Fatalf("n = %d (%v), want 11", n, err)
	}
}

// TestPipeTxBoundsItsStatements: past its bound, a connection's prepared
// statements are deallocated and prepared again as they come.
func TestPipeTxBoundsItsStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, conn := pipeConn(t, `SELECT 1`)
	conn.Conn().PgConn().CustomData()[pipeStatementsKey] = &pipeStatements{bySQL: map[string]*pgconn.StatementDescription{}, max: 3}
	const count = `SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'taasky_pipe_%'`
	for i := range 10 {
		tx := &pipeTx{conn: conn}
		var n, prepared int
		if err := tx.QueryRow(ctx, fmt.Sprintf(`SELECT %d`, i)).Scan(&n); err != nil || n != i {
			t.Fatalf("statement %d: %d, %v", i, n, err)
		}
		if err := tx.QueryRow(ctx, count).Scan(&prepared); err != nil {
			t.Fatal(err)
		}
		if prepared > 3 {
			t.Fatalf("after %d statements, %d prepared; the bound is 3", i+1, prepared)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// pipeConn is a pool on an empty database where setup ran, and one of its
// connections, released and closed when the test ends.
func pipeConn(t *testing.T, setup string) (*pgxpool.Pool, *pgxpool.Conn) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.NewEmptyDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, setup); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Release)
	return pool, conn
}

// TestPipeTxAfterAMigration: a table changed under a prepared statement
// fails that transaction, as with pgx's cache; the connection's statements
// are then prepared afresh, and the next transaction sees the new table.
func TestPipeTxAfterAMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, conn := pipeConn(t, `CREATE TABLE pipe (id int PRIMARY KEY); INSERT INTO pipe VALUES (1)`)
	columns := func() (int, error) {
		tx := &pipeTx{conn: conn}
		rows, err := tx.Query(ctx, `SELECT * FROM pipe`)
		if err == nil {
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			_ = tx.Rollback(ctx)
			return 0, err
		}
		return len(rows.FieldDescriptions()), tx.Commit(ctx)
	}
	if n, err := columns(); err != nil || n != 1 {
		t.Fatalf("before: %d columns, %v", n, err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE pipe ADD COLUMN n int`); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError
	if _, err := columns(); !errors.As(err, &pgErr) || pgErr.Code != "0A000" {
		t.Fatalf("the statement prepared before the migration: %v, want 0A000", err)
	}
	if n, err := columns(); err != nil || n != 2 {
		t.Fatalf("after: %d columns, %v; want 2", n, err)
	}
}

// TestPipeTxAfterALostConnection: a read that finds the connection gone
// (EOF: the server's host died, not a FATAL message) makes pgx close it
// from a goroutine of its own, which sends Terminate; pgx's Pipeline is
// not closed by that loss and would take more writes. pipeTx writes
// nothing more: neither the rollback nor a later statement runs beside
// pgx's goroutine (the race detector saw the two; when both wrote at once,
// pgx v5.12 panicked "BUG: slow write timer already active" and took
// TestFailover's nodes down). Nothing of the transaction stays.
func TestPipeTxAfterALostConnection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.NewEmptyDSN(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy := proxyConfig(t, cfg.ConnConfig)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, `CREATE TABLE pipe (id int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx := &pipeTx{conn: conn}
	if _, err := tx.Exec(ctx, `INSERT INTO pipe (id) VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	proxy.cut()
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pipe`).Scan(&n); err == nil {
		t.Fatal("a read on a lost connection succeeded")
	}
	if _, err := tx.Exec(ctx, `INSERT INTO pipe (id) VALUES (2)`); err == nil {
		t.Error("a statement after the loss succeeded")
	}
	_ = tx.Rollback(ctx)
	<-conn.Conn().PgConn().CleanupDone()
	conn.Release()

	direct, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if err := direct.QueryRow(ctx, `SELECT count(*) FROM pipe`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("after the loss the table holds %d rows (%v), want 0", n, err)
	}
}
