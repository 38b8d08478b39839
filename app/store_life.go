package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The SQL of the account's life: rename, export.

// updateAccountName sets the account's name and returns the one it had,
// locking the row.
func updateAccountName(ctx context.Context, q querier, accountID int64, name string) (string, error) {
	var old string
	err := q.QueryRow(ctx, `UPDATE accounts a SET name = $2 FROM (SELECT id, name FROM accounts WHERE id = $1 FOR UPDATE) o
		WHERE a.id = o.id RETURNING o.name`, accountID, name).Scan(&old)
	if err != nil {
		return "", fmt.Errorf("updateAccountName %d: %w", accountID, err)
	}
	return old, nil
}

// accountSeat is a room an account sits in, and its side.
type accountSeat struct {
	roomID int64
	side   negotiation.Side
}

// selectAccountSeats lists the account's seats, oldest room first.
func selectAccountSeats(ctx context.Context, q querier, accountID int64) ([]accountSeat, error) {
	rows, err := q.Query(ctx, `SELECT room_id, side FROM parties WHERE account_id = $1 ORDER BY room_id, side`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectAccountSeats %d: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (accountSeat, error) {
		var s accountSeat
		err := row.Scan(&s.roomID, &s.side)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectAccountSeats %d: %w", accountID, err)
	}
	return out, nil
}
