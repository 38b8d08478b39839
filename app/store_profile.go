package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A person's address is written by an answer in the browser (the seat's)
// and by an open that invites it (the room's), and forgotten by their
// erasure (forgetAddresses), which reads the seats and rooms that hold it
// in one statement: a seat or room written by a transaction that commits
// after that statement began and before the erasure commits would keep
// the address of someone erased after it was written. So they serialize
// on the address: an erasure holds, until it commits, an exclusive
// advisory lock on each of its addresses, and a writer a shared one on the
// address it writes. Each takes these locks before any row lock (no
// cycle through a row), an erasure its several in the order of their keys
// (no cycle between two erasures), and a writer only one. A writer that
// comes second writes after the erasure committed: a new answer or
// invitation, which keeps its address; an erasure that comes second reads
// what the writer committed, and forgets it.

// addressLockClass is the first key of the advisory locks on addresses
// ("tadr"), apart from any other advisory lock; the second is the hash of
// the lowercased address (two addresses of the same hash share a lock).
const addressLockClass = 0x74616472

// queueAddressShare queues a writer's lock on email, to be sent in front
// of the transaction's next statement (roomTx.sendWrites): no round trip
// of its own.
func queueAddressShare(b *pgx.Batch, email string) {
	b.Queue(`SELECT pg_advisory_xact_lock_shared($1, hashtext(lower($2::text)))::text`, int32(addressLockClass), email)
}

// lockAddresses takes an erasure's locks on the addresses (any case),
// in the order of their keys, until the transaction ends.
func lockAddresses(ctx context.Context, q querier, emails []string) error {
	if len(emails) == 0 {
		return nil
	}
	if _, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock($1, k)
		FROM (SELECT DISTINCT hashtext(lower(e)) AS k FROM unnest($2::text[]) e ORDER BY k OFFSET 0) keys`,
		int32(addressLockClass), emails); err != nil {
		return fmt.Errorf("lockAddresses: %w", err)
	}
	return nil
}

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

// forgetAddresses forgets the addresses of people being erased wherever
// they answered a room in the browser, or were invited to one, by them:
// the seat's address (nothing more is mailed to it; the personal link
// still opens the room), the room's invitation address, the address in
// that person's delivery log, and in the jobs of the invitation mails to
// them: a room's, finished (River keeps them a day, a failed one 7 days,
// shown to operators) or not (the mail, run without it, is skipped: its
// room no longer holds the address either), and an account's, finished (a
// queued one is still sent: the account's invitations are its own); and the timeline notes of the
// rooms handed over when they left an account keep the note, naming no one
// (room_notes is small, one row per seat handed over: read whole). The inviter's own delivery log
// line of an invitation mail keeps it (their record of what they sent,
// deleted after RETAIN_DELIVERY_LOG_DAYS). Addresses match without case.
func forgetAddresses(ctx context.Context, q querier, emails []string) error {
	if len(emails) == 0 {
		return nil
	}
	lowered := make([]string, len(emails))
	for i, e := range emails {
		lowered[i] = strings.ToLower(e)
	}
	_, err := q.Exec(ctx, `WITH seats AS (SELECT room_id, side FROM parties
			WHERE lower(person_email) = ANY($1) AND person_email IS NOT NULL FOR UPDATE),
		invited AS (UPDATE rooms SET invite_email = NULL WHERE lower(invite_email) = ANY($1) AND invite_email IS NOT NULL),
		sent AS (UPDATE person_deliveries d SET recipient = '' FROM seats s
			WHERE d.room_id = s.room_id AND lower(d.recipient) = ANY($1)),
		noted AS (UPDATE room_notes SET email = '' WHERE kind = 'member_left' AND lower(email) = ANY($1)),
		mailed AS (UPDATE river_job SET args = args - 'to' WHERE lower(args->>'to') = ANY($1)
			AND (kind = 'notify_invite' OR (kind = 'member_invite' AND state IN ('completed', 'cancelled', 'discarded'))))
		UPDATE parties p SET person_email = NULL FROM seats s WHERE p.room_id = s.room_id AND p.side = s.side`, lowered)
	if err != nil {
		return fmt.Errorf("forgetAddresses: %w", err)
	}
	return nil
}
