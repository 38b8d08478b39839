package bench

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// durableAccounts is how many accounts PrepareDurable makes: pgbench -i -s 1's.
const durableAccounts = 100_000

// PrepareDurable makes the durable-call floor's tables afresh in a scratch
// database, as pgbench -i -s 1 makes its own (accounts, and an empty
// history), so that no run measures what the runs before it left.
func PrepareDurable(ctx context.Context, pool *pgxpool.Pool) error {
	err := DropDurable(ctx, pool)
	if err == nil {
		_, err = pool.Exec(ctx, `CREATE TABLE echo_accounts (aid int PRIMARY KEY, bid int NOT NULL, abalance int NOT NULL, filler char(84));
		CREATE TABLE echo_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))`)
	}
	if err != nil {
		return fmt.Errorf("durable floor's tables: %w", err)
	}
	_, err = pool.Exec(ctx, `INSERT INTO echo_accounts (aid, bid, abalance, filler)
		SELECT i, 1, 0, '' FROM generate_series(1, $1::int) i`, durableAccounts)
	if err == nil {
		_, err = pool.Exec(ctx, `VACUUM ANALYZE echo_accounts`)
	}
	if err != nil {
		return fmt.Errorf("durable floor's accounts: %w", err)
	}
	return nil
}

// DropDurable drops PrepareDurable's tables.
func DropDurable(ctx context.Context, pool *pgxpool.Pool) error {
	_, err := pool.Exec(ctx, `DROP TABLE IF EXISTS echo_accounts, echo_history`)
	return err
}

// DurableCall is the durable-call floor's work: pgbench -N's transaction
// (update a random account's balance, read it back, log the change in the
// history, commit), on PrepareDurable's tables. Served as the echo server's
// echo_commit tool, it is a move with nothing of a negotiation in it: one
// MCP call and one durable transaction of five statements.
func DurableCall(pool *pgxpool.Pool) func(context.Context) error {
	return func(ctx context.Context) error {
		aid, delta := 1+rand.IntN(durableAccounts), rand.IntN(10001)-5000
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `UPDATE echo_accounts SET abalance = abalance + $2 WHERE aid = $1`, aid, delta); err != nil {
				return err
			}
			var balance int
			if err := tx.QueryRow(ctx, `SELECT abalance FROM echo_accounts WHERE aid = $1`, aid).Scan(&balance); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO echo_history (tid, bid, aid, delta, mtime) VALUES ($1, 1, $2, $3, CURRENT_TIMESTAMP)`,
				1+rand.IntN(10), aid, delta)
			return err
		})
	}
}
