package app

import (
	"context"
	"fmt"
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
