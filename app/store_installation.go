package app

import (
	"context"
	"fmt"
)

// keepKeyCheck records check as the installation's key fingerprint unless
// one is recorded already (the first process to start wins; a concurrent
// one waits for its row lock and then finds it set), and returns the one
// recorded.
func keepKeyCheck(ctx context.Context, q querier, check []byte) ([]byte, error) {
	if _, err := q.Exec(ctx, `UPDATE installation SET key_check = $1 WHERE key_check IS NULL`, check); err != nil {
		return nil, fmt.Errorf("keepKeyCheck: %w", err)
	}
	var kept []byte
	if err := q.QueryRow(ctx, `SELECT key_check FROM installation`).Scan(&kept); err != nil {
		return nil, fmt.Errorf("keepKeyCheck: %w", err)
	}
	return kept, nil
}

// raiseReceiptKeyVersion records version as the installation's receipt key
// version unless a higher one is recorded (concurrent processes take turns
// on the row), and returns the one recorded.
func raiseReceiptKeyVersion(ctx context.Context, q querier, version int) (int, error) {
	var kept int
	if err := q.QueryRow(ctx, `UPDATE installation SET receipt_key_version = greatest(receipt_key_version, $1)
		RETURNING receipt_key_version`, version).Scan(&kept); err != nil {
		return 0, fmt.Errorf("raiseReceiptKeyVersion: %w", err)
	}
	return kept, nil
}
