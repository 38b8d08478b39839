package app

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestLockConflict: a deadlock PostgreSQL broke (two transactions each
// waiting for the other's row), and a serialization failure, are a call
// to send again (RetryLater), not an internal error's; a refusal is not.
func TestLockConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE lock_pair (id int PRIMARY KEY); INSERT INTO lock_pair VALUES (1), (2)`); err != nil {
		t.Fatal(err)
	}
	var txs [2]pgx.Tx
	for i := range txs {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(context.Background()) }()
		if _, err := tx.Exec(ctx, `SELECT 1 FROM lock_pair WHERE id = $1 FOR UPDATE`, i+1); err != nil {
			t.Fatal(err)
		}
		txs[i] = tx
	}
	errs := make(chan error, 2)
	for i, tx := range txs {
		go func() {
			_, err := tx.Exec(ctx, `SELECT 1 FROM lock_pair WHERE id = $1 FOR UPDATE`, 2-i)
			if err != nil {
				_ = tx.Rollback(context.Background()) // the other goes on
			}
			errs <- err
		}()
	}
	var deadlock error
	for range 2 {
		if err := <-errs; err != nil {
			deadlock = fmt.Errorf("move: %w", err)
		}
	}
	if pe, ok := errors.AsType[*pgconn.PgError](deadlock); !ok || pe.Code != "40P01" {
		t.Fatalf("want a deadlock, got %v", deadlock)
	}
	for _, err := range []error{deadlock, fmt.Errorf("x: %w", &pgconn.PgError{Code: "40001"})} {
		if !LockConflict(err) || !RetryLater(err) || Unavailable(err) {
			t.Errorf("%v: LockConflict %v, RetryLater %v, Unavailable %v; want true, true, false", err, LockConflict(err), RetryLater(err), Unavailable(err))
		}
	}
	for _, err := range []error{&pgconn.PgError{Code: "23505"}, Errorf(ErrConflict, "x"), errors.New("boom")} {
		if LockConflict(err) || RetryLater(err) {
			t.Errorf("%v: want neither a lock conflict nor a retry", err)
		}
	}
}
