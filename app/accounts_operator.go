package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Operators run the service: they may see its internals (the River UI at
// /admin/jobs). The flag is on a membership; a user is an operator if any
// of their memberships is.

// IsOperator reports whether the user is an operator (any membership with
// operator = true). A user that does not exist is not one.
func (a *Accounts) IsOperator(ctx context.Context, userID int64) (bool, error) {
	ok, err := selectIsOperator(ctx, a.pool, userID)
	if err != nil {
		return false, fmt.Errorf("is operator: %w", err)
	}
	return ok, nil
}

// SetOperator flags (on) or unflags the membership of the user with email
// in the account with slug. The user must be a member already. The
// account's audit log records it, by an operator: the flag opens the
// installation's internals to that person.
func (a *Accounts) SetOperator(ctx context.Context, slug, email string, on bool) error {
	email, err := normalizeEmail("email", email)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acct, err := selectAccountBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		userID, err := selectMemberByEmail(ctx, tx, acct.ID, email)
		if err != nil {
			return notFound(err, "", "%s is not a member of %s", email, slug)
		}
		ok, err := updateOperator(ctx, tx, acct.ID, userID, on)
		if err != nil {
			return err
		}
		if !ok {
			return Errorf(ErrNotFound, "%s is not a member of %s", email, slug)
		}
		action := AuditOperatorGranted
		if !on {
			action = AuditOperatorRevoked
		}
		return insertAudit(ctx, tx, acct.ID, 0, action, a.now(), map[string]string{"email": email})
	})
	if err != nil {
		return fmt.Errorf("set operator: %w", err)
	}
	return nil
}
