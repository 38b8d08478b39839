package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UserByID returns the user with id.
func (a *Accounts) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := scanUser(a.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return User{}, fmt.Errorf("user by id: %w", notFound(err, "no user %d", id))
	}
	return u, nil
}

// OwnerEmails lists the emails of account owners, first created first, at
// most limit of them: the dev issuer's login page offers them.
func (a *Accounts) OwnerEmails(ctx context.Context, limit int) ([]string, error) {
	rows, err := a.pool.Query(ctx, `SELECT DISTINCT ON (u.id) u.email FROM users u
		JOIN memberships m ON m.user_id = u.id AND m.role = 'owner'
		ORDER BY u.id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("owner emails: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
