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

// EndSessions ends every session of the user, in every browser: each
// session cookie carries the user's session epoch, which this raises. A
// sign-out calls it, so that a copy of the cookie (taken from a shared
// computer, a proxy's log, a backup) stops working with the sign-out
// rather than at its expiry.
func (a *Accounts) EndSessions(ctx context.Context, userID int64) error {
	if err := bumpSessionEpoch(ctx, a.pool, userID); err != nil {
		return fmt.Errorf("end sessions: %w", err)
	}
	return nil
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
