package app

import (
	"context"
	"fmt"
)

// lockUser locks a person's row (FOR UPDATE: a membership inserted
// meanwhile waits for it) and returns their address.
func lockUser(ctx context.Context, q querier, userID int64) (string, error) {
	var email string
	if err := q.QueryRow(ctx, `SELECT email FROM users WHERE id = $1 FOR UPDATE`, userID).Scan(&email); err != nil {
		return "", fmt.Errorf("lockUser %d: %w", userID, err)
	}
	return email, nil
}

// deleteUser deletes a person in no account: their settings, push
// subscriptions and delivery log go with the row (ON DELETE CASCADE), the
// seats they answered for forget them (parties.owner_user_id SET NULL).
func deleteUser(ctx context.Context, q querier, userID int64) error {
	tag, err := q.Exec(ctx, `DELETE FROM users u WHERE u.id = $1
		AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id)`, userID)
	if err == nil && tag.RowsAffected() != 1 {
		err = fmt.Errorf("still a member")
	}
	if err != nil {
		return fmt.Errorf("deleteUser %d: %w", userID, err)
	}
	return nil
}
