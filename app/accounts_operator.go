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
		return insertAudit(ctx, tx, acct.ID, 0, action, a.dbMoment(), map[string]string{"email": email})
	})
	if err != nil {
		return fmt.Errorf("set operator: %w", err)
	}
	return nil
}

// Released is what ReleaseSignInAsOperator did: the login (issuer,
// subject) the user no longer signs in with, and the accounts whose audit
// logs say so.
type Released struct {
	Email    string
	Issuer   string
	Subject  string
	Accounts []string // slugs
}

// ReleaseSignInAsOperator unlinks the user with email from the identity
// provider's login they signed in with, for an operator who checked
// outside Taasky that the person asking holds the address (their
// provider account was re-created, or the service's OIDC_ISSUER
// changed): their next sign-in whose provider verifies the address,
// whatever its issuer and subject, is linked to this user, with their
// accounts, roles, rooms and settings (loginOIDC's first-login path). An
// unverified address never takes the link. Every session of theirs ends
// at once, and the old login no longer signs in as them. Each of their
// accounts' audit logs records it, by an operator. A user who never
// signed in (or was released already) has nothing to release.
func (a *Accounts) ReleaseSignInAsOperator(ctx context.Context, email string) (Released, error) {
	email, err := normalizeEmail("email", email)
	if err != nil {
		return Released{}, fmt.Errorf("relink: %w", err)
	}
	var r Released
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		u, err := selectUserByEmail(ctx, tx, email, true)
		if err != nil {
			return notFound(err, "", "email: no user has the address %s", email)
		}
		if u.OIDCIssuer == "" {
			return Errorf(ErrConflict, "email: %s has no sign-in to relink (they never signed in, or it was released already and waits for their next sign-in)", email)
		}
		ms, err := selectMemberships(ctx, tx, u.ID)
		if err != nil {
			return err
		}
		if err := releaseUserOIDC(ctx, tx, u.ID); err != nil {
			return err
		}
		r = Released{Email: email, Issuer: u.OIDCIssuer, Subject: u.OIDCSubject}
		for _, m := range ms {
			if err := insertAudit(ctx, tx, m.AccountID, 0, AuditSignInReleased, a.dbMoment(),
				map[string]string{"email": email, "from": u.OIDCIssuer}); err != nil {
				return err
			}
			r.Accounts = append(r.Accounts, m.AccountSlug)
		}
		return nil
	})
	if err != nil {
		return Released{}, fmt.Errorf("relink: %w", err)
	}
	return r, nil
}
