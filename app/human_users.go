package app

import (
	"context"
	"fmt"
)

// UserByID returns the user with id.
func (a *Accounts) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := selectUserByID(ctx, a.pool, id)
	if err != nil {
		return User{}, fmt.Errorf("user by id: %w", notFound(err, "", "no user %d", id))
	}
	return u, nil
}

// OwnerEmails lists the emails of account owners, first created first, at
// most limit of them: the dev issuer's login page offers them.
func (a *Accounts) OwnerEmails(ctx context.Context, limit int) ([]string, error) {
	emails, err := selectOwnerEmails(ctx, a.pool, limit)
	if err != nil {
		return nil, fmt.Errorf("owner emails: %w", err)
	}
	return emails, nil
}
