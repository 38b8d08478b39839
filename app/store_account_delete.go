package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of deleting an account (account_delete.go; migration 00018 says
// what of its rooms stays).

// lockAccountForDeletion locks the account's row and its agents' rows: a
// move that seats one of its agents in a room (the party's foreign key
// takes a share lock on the agent) waits for the deletion, and then finds
// no agent; one that got in first is waited for. The account's row is
// locked as strongly as its erasure needs (erase), or only against other
// writers of the row and member changes (lockAccountMembers): a one-tap
// answer that holds its link's row and then logs a row referencing the
// account (a key-share lock) must not wait for a deletion that waits for
// that link's row.
func lockAccountForDeletion(ctx context.Context, q querier, accountID int64, erase bool) error {
	account := `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`
	if erase {
		account = `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`
	}
	for _, sql := range []string{account, `SELECT 1 FROM agents WHERE account_id = $1 FOR UPDATE`} {
		if _, err := q.Exec(ctx, sql, accountID); err != nil {
			return fmt.Errorf("lockAccountForDeletion %d: %w", accountID, err)
		}
	}
	return nil
}

// revokeAccountAccess revokes every key of the account's agents and
// deletes its OAuth grants' tokens; it returns the keys' hashes (to forget
// them at once).
func revokeAccountAccess(ctx context.Context, q querier, accountID int64, at time.Time) ([][]byte, error) {
	rows, err := q.Query(ctx, `UPDATE agent_keys SET revoked_at = coalesce(revoked_at, $2)
		WHERE account_id = $1 RETURNING key_hash`, accountID, at)
	if err != nil {
		return nil, fmt.Errorf("revokeAccountAccess %d: %w", accountID, err)
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, fmt.Errorf("revokeAccountAccess %d: %w", accountID, err)
	}
	if _, err := q.Exec(ctx, `WITH t AS (DELETE FROM oauth_tokens WHERE account_id = $1)
		UPDATE oauth_agents SET disconnected_at = coalesce(disconnected_at, $2) WHERE account_id = $1`, accountID, at); err != nil {
		return nil, fmt.Errorf("revokeAccountAccess %d: %w", accountID, err)
	}
	return hashes, nil
}

// unseatAccountHumans makes every seat of the account nobody's: a room
// closed for the deletion tells no human of the account (fanOut tells a
// side's human only), and the one-tap links sent to them stop working.
func unseatAccountHumans(ctx context.Context, q querier, accountID int64, at time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE parties SET owner_user_id = NULL WHERE account_id = $1 AND owner_user_id IS NOT NULL`,
		accountID); err != nil {
		return fmt.Errorf("unseatAccountHumans %d: %w", accountID, err)
	}
	if _, err := q.Exec(ctx, `UPDATE onetap_tokens t SET used_at = $2, stopped = $3
		FROM parties p, confirmations c
		WHERE p.account_id = $1 AND c.room_id = p.room_id AND c.side = p.side AND c.status = 'pending'
		  AND t.room_id = c.room_id AND t.confirmation_id = c.id AND t.used_at IS NULL`, accountID, at, LinkStoppedAccountDeleted); err != nil {
		return fmt.Errorf("unseatAccountHumans %d: %w", accountID, err)
	}
	return nil
}

// disableAccountHooks disables the account's webhook endpoints: a room
// closed for the deletion writes no message for them (the fan-out reads
// enabled endpoints only), and a message queued before is skipped when its
// job runs. They go with the account (eraseAccount).
func disableAccountHooks(ctx context.Context, q querier, accountID int64, at time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = $2, disabled_why = 'the account is being deleted'
		WHERE account_id = $1 AND disabled_at IS NULL`, accountID, at); err != nil {
		return fmt.Errorf("disableAccountHooks %d: %w", accountID, err)
	}
	return nil
}

// selectMemberIDs lists the account's members.
func selectMemberIDs(ctx context.Context, q querier, accountID int64) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT user_id FROM memberships WHERE account_id = $1 ORDER BY user_id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectMemberIDs %d: %w", accountID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectMemberIDs %d: %w", accountID, err)
	}
	return ids, nil
}

// countOpenAccountRooms counts the rooms the account sits in that are not
// final yet.
func countOpenAccountRooms(ctx context.Context, q querier, accountID int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM parties p JOIN rooms r ON r.id = p.room_id
		WHERE p.account_id = $1 AND r.state IN ('draft', 'awaiting')`, accountID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("countOpenAccountRooms %d: %w", accountID, err)
	}
	return n, nil
}

// eraseAccount erases the account's side of its rooms and the account: its
// members' delivery log entries about its rooms and its invitation mails, its notes, its place in
// the lists, and from its party rows the human, the agent, the room token
// (replaced by a random hash that no token has) and the sealed limits, and
// the addresses its invitations were emailed to (in its rooms and in the
// arguments of the mails' finished jobs); then
// the account's row (memberships, agents and their keys and grants,
// invitations, the audit log, seen schemas go with it; the marks of its
// limits, limit_marks, are deleted before it), and the members
// who belong to no other account (their settings, push subscriptions and
// delivery log go with them, and their addresses from the rooms they
// answered in the browser: the caller forgets them, forgetAddresses). It
// returns the users it erased and their addresses.
func eraseAccount(ctx context.Context, q querier, accountID int64, members []int64) ([]int64, []string, error) {
	steps := []string{
		`DELETE FROM notification_deliveries d USING parties p
			WHERE p.account_id = $1 AND d.room_id = p.room_id AND d.user_id = ANY($2)`,
		`DELETE FROM notification_deliveries d USING account_invitations i
			WHERE i.account_id = $1 AND d.user_id = ANY($2) AND d.topic = 'member_invite' AND d.recipient = i.email`,
		`DELETE FROM room_notes n USING parties p WHERE p.account_id = $1 AND n.room_id = p.room_id AND n.side = p.side`,
		`DELETE FROM party_ranks WHERE account_id = $1`,
		`DELETE FROM party_tokens_before b USING parties p WHERE p.account_id = $1 AND b.room_id = p.room_id AND b.side = p.side`,
		`UPDATE parties SET owner_user_id = NULL, agent_id = NULL, person_email = NULL, token_salt = '', limits_enc = '',
			token_hash = sha256(convert_to(gen_random_uuid()::text || room_id::text || side, 'UTF8'))
			WHERE account_id = $1`,
		`UPDATE rooms SET invite_email = NULL WHERE account_id = $1 AND invite_email IS NOT NULL`,
		// River keeps a finished job a day (a failed one 7 days), shown to
		// operators: its invitation mails' arguments hold the invitees' addresses.
		`UPDATE river_job SET args = args - 'to' WHERE kind = 'member_invite' AND (args->>'account_id')::bigint = $1
			AND args ? 'to' AND state IN ('completed', 'cancelled', 'discarded')`,
		// A room's invitation mail still queued is skipped when it runs
		// (its room is closed, and holds no address): its address goes now.
		`UPDATE river_job j SET args = j.args - 'to' FROM rooms r WHERE j.kind = 'notify_invite' AND r.account_id = $1
			AND (j.args->>'room_id')::bigint = r.id AND j.args ? 'to'`,
		// The marks of its limits (limit_marks, either side of a pair).
		`DELETE FROM limit_marks WHERE account_lo = $1 OR account_hi = $1`,
		`DELETE FROM accounts WHERE id = $1`,
	}
	for i, sql := range steps {
		var args []any
		if i < 2 {
			args = []any{accountID, members}
		} else {
			args = []any{accountID}
		}
		if _, err := q.Exec(ctx, sql, args...); err != nil {
			return nil, nil, fmt.Errorf("eraseAccount %d, step %d: %w", accountID, i+1, err)
		}
	}
	rows, err := q.Query(ctx, `DELETE FROM users u WHERE u.id = ANY($1)
		AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id) RETURNING id, email`, members)
	if err != nil {
		return nil, nil, fmt.Errorf("eraseAccount %d: users: %w", accountID, err)
	}
	var erased []int64
	var emails []string
	var id int64
	var email string
	if _, err := pgx.ForEachRow(rows, []any{&id, &email}, func() error {
		erased, emails = append(erased, id), append(emails, email)
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("eraseAccount %d: users: %w", accountID, err)
	}
	return erased, emails, nil
}

// selectMemberEmails lists the addresses of the account's members, read
// without a lock (to lock them as addresses before any row: lockAddresses).
func selectMemberEmails(ctx context.Context, q querier, accountID int64) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1`, accountID)
	if err != nil {
		return nil, fmt.Errorf("selectMemberEmails %d: %w", accountID, err)
	}
	emails, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("selectMemberEmails %d: %w", accountID, err)
	}
	return emails, nil
}

// markAccountDeleting marks the account as being deleted (at); already:
// it was.
func markAccountDeleting(ctx context.Context, q querier, accountID int64, at time.Time) (already bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE accounts SET deleting_at = $2 WHERE id = $1 AND deleting_at IS NULL`, accountID, at)
	if err != nil {
		return false, fmt.Errorf("markAccountDeleting %d: %w", accountID, err)
	}
	return tag.RowsAffected() == 0, nil
}

// accountDeleting says whether the account is being deleted; pgx.ErrNoRows:
// there is no such account (any more).
func accountDeleting(ctx context.Context, q querier, accountID int64) (bool, error) {
	var deleting bool
	err := q.QueryRow(ctx, `SELECT deleting_at IS NOT NULL FROM accounts WHERE id = $1`, accountID).Scan(&deleting)
	if err != nil {
		return false, fmt.Errorf("accountDeleting %d: %w", accountID, err)
	}
	return deleting, nil
}

// selectAccountForDeletion is the account with slug, and whether it is
// being deleted, whatever its state (selectAccountBySlug's refusal when
// there is none).
func selectAccountForDeletion(ctx context.Context, q querier, slug string) (Account, bool, error) {
	acct := Account{Slug: slug}
	var deleting bool
	err := q.QueryRow(ctx, `SELECT id, name, created_at, deleting_at IS NOT NULL FROM accounts WHERE slug = $1`,
		slug).Scan(&acct.ID, &acct.Name, &acct.CreatedAt, &deleting)
	if errors.Is(err, pgx.ErrNoRows) {
		return Account{}, false, refuse(ErrNotFound, "error.account_not_found", "account not found: %s", slug)
	}
	if err != nil {
		return Account{}, false, fmt.Errorf("selectAccountForDeletion %s: %w", slug, err)
	}
	return acct, deleting, nil
}

// selectMembershipForDeletion is userID's membership in the account with
// slug, and whether the account is being deleted (membershipSQL leaves
// out the accounts being deleted).
func selectMembershipForDeletion(ctx context.Context, q querier, userID int64, slug string) (Membership, bool, error) {
	var m Membership
	var deleting bool
	err := q.QueryRow(ctx, `SELECT m.account_id, a.slug, a.name, m.user_id, m.role, a.deleting_at IS NOT NULL
		FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE a.slug = $1 AND m.user_id = $2`, slug, userID).
		Scan(&m.AccountID, &m.AccountSlug, &m.AccountName, &m.UserID, &m.Role, &deleting)
	if err != nil {
		return Membership{}, false, fmt.Errorf("selectMembershipForDeletion %s %d: %w", slug, userID, err)
	}
	return m, deleting, nil
}

// selectDeletingAccountNames lists the names of the accounts userID is a
// member of that are being deleted, by slug.
func selectDeletingAccountNames(ctx context.Context, q querier, userID int64) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT a.name FROM memberships m JOIN accounts a ON a.id = m.account_id
		WHERE m.user_id = $1 AND a.deleting_at IS NOT NULL ORDER BY a.slug`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectDeletingAccountNames %d: %w", userID, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("selectDeletingAccountNames %d: %w", userID, err)
	}
	return names, nil
}

// revokeAccountInvitations revokes the account's invitations waiting to
// be accepted: nobody joins an account being deleted. (They go with the
// account; until then their addresses find their mails' delivery log.)
func revokeAccountInvitations(ctx context.Context, q querier, accountID int64, at time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE account_invitations SET revoked_at = $2
		WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL`, accountID, at); err != nil {
		return fmt.Errorf("revokeAccountInvitations %d: %w", accountID, err)
	}
	return nil
}

// selectOpenAccountRooms lists at most limit of the rooms the account sits
// in that are not final yet, by id.
func selectOpenAccountRooms(ctx context.Context, q querier, accountID int64, limit int) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT DISTINCT p.room_id FROM parties p JOIN rooms r ON r.id = p.room_id
		WHERE p.account_id = $1 AND r.state IN ('draft', 'awaiting') ORDER BY p.room_id LIMIT $2`, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("selectOpenAccountRooms %d: %w", accountID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectOpenAccountRooms %d: %w", accountID, err)
	}
	return ids, nil
}

// selectAccountsBeingDeleted lists the accounts whose deletion began
// before before (a handful at most: each is erased by its job).
func selectAccountsBeingDeleted(ctx context.Context, q querier, before time.Time) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM accounts WHERE deleting_at < $1 ORDER BY id LIMIT 1000`, before)
	if err != nil {
		return nil, fmt.Errorf("selectAccountsBeingDeleted: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectAccountsBeingDeleted: %w", err)
	}
	return ids, nil
}
