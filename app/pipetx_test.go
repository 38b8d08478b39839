package app

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
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
// COMMIT and nothing of the transaction stays; a statement after held
// writes sees them; a rollback drops them; QueryRow says pgx.ErrNoRows as
// pgx does, and the transaction goes on.
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
}
