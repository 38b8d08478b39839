package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The account's life after sign-up: its owners and admins rename it (and
// export it, account_export.go); every change is in the audit log.

// RenameAccount sets the display name of the account with slug (1–80
// characters). Owners and admins may; the slug does not change.
func (a *Accounts) RenameAccount(ctx context.Context, actorID int64, slug, name string) (Account, error) {
	name, err := checkName("name", name)
	if err != nil {
		return Account{}, fmt.Errorf("rename account: %w", err)
	}
	var out Account
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acctID, err := a.authorize(ctx, tx, actorID, slug, ActManageAccount, false,
			refuse(ErrUnauthorized, "error.rename_who", "name: only the account's owners and admins rename it"))
		if err != nil {
			return err
		}
		old, err := updateAccountName(ctx, tx, acctID, name)
		if err != nil {
			return err
		}
		out, err = selectAccountBySlug(ctx, tx, slug)
		if err != nil || old == name {
			return err
		}
		return insertAudit(ctx, tx, acctID, actorID, AuditAccountRenamed, a.dbMoment(), map[string]string{"from": old, "to": name})
	})
	if err != nil {
		return Account{}, fmt.Errorf("rename account: %w", err)
	}
	return out, nil
}
