package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of the audit log (audit_log, migration 00012).

// auditInsertSQL appends an entry at $2 (NULL: the statement's moment, the
// database's clock, so that the moments of entries written by processes
// whose clocks disagree follow their order); actorID 0 is an operator.
// The actor's email is copied in, so the entry still says who after they
// leave.
const auditInsertSQL = `INSERT INTO audit_log (account_id, at, actor_id, actor, action, detail)
	VALUES ($1, coalesce($2::timestamptz, statement_timestamp()), $3, coalesce((SELECT email FROM users WHERE id = $3), 'operator'), $4, $5)`

// auditWrite is insertAudit folded into a statement of a change's batch
// (foldedWrite): an entry is read by nothing a move writes.
func auditWrite(accountID, actorID int64, action AuditAction, at *time.Time, detail map[string]string) foldedWrite {
	return foldedWrite{auditInsertSQL, auditArgs(accountID, actorID, action, at, detail)}
}

func auditArgs(accountID, actorID int64, action AuditAction, at *time.Time, detail map[string]string) []any {
	if detail == nil {
		detail = map[string]string{}
	}
	var actor *int64
	if actorID != 0 {
		actor = &actorID
	}
	return []any{accountID, at, actor, string(action), detail}
}

// insertAudit appends an entry by a statement of its own.
func insertAudit(ctx context.Context, q querier, accountID, actorID int64, action AuditAction, at *time.Time, detail map[string]string) error {
	_, err := q.Exec(ctx, auditInsertSQL, auditArgs(accountID, actorID, action, at, detail)...)
	if err != nil {
		return fmt.Errorf("insertAudit %d %s: %w", accountID, action, err)
	}
	return nil
}

// selectAudit reads at most limit entries of the account with ids below
// before, newest first.
func selectAudit(ctx context.Context, q querier, accountID, before int64, limit int) ([]AuditEntry, error) {
	rows, err := q.Query(ctx, `SELECT id, at, coalesce(actor_id, 0), actor, action, detail FROM audit_log
		WHERE account_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, accountID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("selectAudit %d: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEntry, error) {
		var e AuditEntry
		err := row.Scan(&e.ID, &e.At, &e.ActorID, &e.Actor, &e.Action, &e.Detail)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectAudit %d: %w", accountID, err)
	}
	return out, nil
}

// countSignupsSince counts the accounts the person whose address has these
// hashes (emailHashes) created since t (the sign-up cap, from signups: kept when accounts are
// deleted), after locking the user's row so that concurrent sign-ups count
// each other; and the first of them.
func countSignupsSince(ctx context.Context, q querier, userID int64, hashes [][]byte, since time.Time) (int, time.Time, error) {
	if _, err := q.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
		return 0, time.Time{}, fmt.Errorf("countSignupsSince %d: %w", userID, err)
	}
	var n int
	var first *time.Time
	err := q.QueryRow(ctx, `SELECT count(*), min(at) FROM signups WHERE email_hash = ANY($1) AND at > $2`,
		hashes, since).Scan(&n, &first)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("countSignupsSince %d: %w", userID, err)
	}
	if first == nil {
		return n, time.Time{}, nil
	}
	return n, *first, nil
}

// insertSignup records a sign-up of the person with this address at at,
// and forgets every sign-up older than a day.
func insertSignup(ctx context.Context, q querier, hash []byte, at time.Time) error {
	_, err := q.Exec(ctx, `WITH old AS (DELETE FROM signups WHERE at <= $2::timestamptz - interval '24 hours')
		INSERT INTO signups (email_hash, at) VALUES ($1, $2)`, hash, at)
	if err != nil {
		return fmt.Errorf("insertSignup: %w", err)
	}
	return nil
}
