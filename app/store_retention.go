package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The retention purge's SQL (retention.go). Every statement deletes a
// bounded batch, found through a primary key or an existing index: the
// tables a move writes get no index for it.

// purgeDeliveryLogSQL deletes, for the users with an id above $1 (at most
// $2 of them, in id order), at most $4 delivery log lines each created
// before $3, through notification_deliveries_user_created (user_id,
// created_at DESC, job_id DESC). It says the last user id it looked at
// (NULL: none left), how many lines it deleted, and the most it deleted of
// one user (that many: that user may have more).
const purgeDeliveryLogSQL = `WITH u AS (SELECT id FROM users WHERE id > $1 ORDER BY id LIMIT $2),
	old AS (SELECT o.user_id, o.job_id FROM u CROSS JOIN LATERAL (
		SELECT d.user_id, d.job_id FROM notification_deliveries d
		WHERE d.user_id = u.id AND d.created_at < $3 LIMIT $4) o),
	gone AS (DELETE FROM notification_deliveries d USING old
		WHERE d.user_id = old.user_id AND d.job_id = old.job_id RETURNING d.user_id)
	SELECT (SELECT max(id) FROM u), (SELECT count(*) FROM gone),
		coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM gone GROUP BY user_id) g), 0)`

// purgeDeliveryLog runs purgeDeliveryLogSQL.
func purgeDeliveryLog(ctx context.Context, q querier, afterUser int64, users int, before time.Time, perUser int) (last *int64, deleted, most int, err error) {
	err = q.QueryRow(ctx, purgeDeliveryLogSQL, afterUser, users, before, perUser).Scan(&last, &deleted, &most)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("purgeDeliveryLog: %w", err)
	}
	return last, deleted, most, nil
}

// purgeWebhookMessagesSQL deletes, for the endpoints after ($1, $2) in
// (account_id, id) order (at most $3 of them), at most $5 messages each
// that reached their final status and whose every attempt (and their
// event) came before $4, or that did not and whose every attempt (and
// event) came before $6 (no earlier than $4: their job is gone), through
// webhook_messages_endpoint and the attempts' primary key; their attempts
// go with them (ON DELETE CASCADE).
// It says the last endpoint it looked at (NULL: none left), how many
// messages it deleted, and the most of one endpoint.
const purgeWebhookMessagesSQL = `WITH e AS (SELECT account_id, id FROM webhook_endpoints
		WHERE (account_id, id) > ($1, $2) ORDER BY account_id, id LIMIT $3),
	old AS (SELECT o.account_id, o.id FROM e CROSS JOIN LATERAL (
		SELECT m.account_id, m.id FROM webhook_messages m
		WHERE m.account_id = e.account_id AND m.endpoint_id = e.id AND m.occurred_at < $4
		  AND (m.status IN ('sent', 'failed', 'skipped') OR m.occurred_at < $6)
		  AND NOT EXISTS (SELECT 1 FROM webhook_attempts a
			WHERE a.account_id = m.account_id AND a.message_id = m.id
			  AND a.at >= CASE WHEN m.status IN ('sent', 'failed', 'skipped') THEN $4 ELSE $6 END)
		LIMIT $5) o),
	gone AS (DELETE FROM webhook_messages m USING old
		WHERE m.account_id = old.account_id AND m.id = old.id RETURNING m.account_id, m.endpoint_id)
	SELECT (SELECT account_id FROM e ORDER BY account_id DESC, id DESC LIMIT 1),
		(SELECT id FROM e ORDER BY account_id DESC, id DESC LIMIT 1),
		(SELECT count(*) FROM gone),
		coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM gone GROUP BY account_id, endpoint_id) g), 0)`

// purgeWebhookMessages runs purgeWebhookMessagesSQL.
func purgeWebhookMessages(ctx context.Context, q querier, afterAccount, afterEndpoint int64, endpoints int, before, unfinishedBefore time.Time, perEndpoint int) (lastAccount, lastEndpoint *int64, deleted, most int, err error) {
	err = q.QueryRow(ctx, purgeWebhookMessagesSQL, afterAccount, afterEndpoint, endpoints, before, perEndpoint, unfinishedBefore).
		Scan(&lastAccount, &lastEndpoint, &deleted, &most)
	if err != nil {
		return nil, nil, 0, 0, fmt.Errorf("purgeWebhookMessages: %w", err)
	}
	return lastAccount, lastEndpoint, deleted, most, nil
}

// capCountsSQL is the statement that deletes, of table (invite_emails:
// room invitations' mails; member_invite_emails: invitations to join's,
// with key the column after account_id and created_at in its primary key),
// the caps' counts made before $3: for the accounts holding counts with an
// id above $1 (at most $2 of them, in id order, found by skipping through
// the primary key from one account to the next, so that accounts without
// counts are never read), at most $4 each. Rows an invitation's own
// forgetting holds are skipped (SKIP LOCKED: it deletes them, and the
// purge never waits for it, so the two cannot deadlock). It says the last
// account it looked at (NULL: none left), how many rows it deleted, and
// the most of one account.
func capCountsSQL(table, key string) string {
	return `WITH RECURSIVE a(id) AS (
			(SELECT account_id FROM ` + table + ` WHERE account_id > $1 ORDER BY account_id LIMIT 1)
			UNION ALL
			SELECT (SELECT account_id FROM ` + table + ` WHERE account_id > a.id ORDER BY account_id LIMIT 1) FROM a WHERE a.id IS NOT NULL),
		w AS (SELECT id FROM a WHERE id IS NOT NULL LIMIT $2),
		old AS (SELECT o.account_id, o.created_at, o.` + key + ` FROM w CROSS JOIN LATERAL (
			SELECT e.account_id, e.created_at, e.` + key + ` FROM ` + table + ` e
			WHERE e.account_id = w.id AND e.created_at < $3 LIMIT $4 FOR UPDATE SKIP LOCKED) o),
		gone AS (DELETE FROM ` + table + ` e USING old
			WHERE e.account_id = old.account_id AND e.created_at = old.created_at AND e.` + key + ` = old.` + key + ` RETURNING e.account_id)
		SELECT (SELECT max(id) FROM w), (SELECT count(*) FROM gone),
			coalesce((SELECT max(n) FROM (SELECT count(*) AS n FROM gone GROUP BY account_id) g), 0)`
}

var (
	purgeInviteCountsSQL       = capCountsSQL("invite_emails", "room_id")
	purgeMemberInviteCountsSQL = capCountsSQL("member_invite_emails", "invitation_id")
)

// purgeCapCounts runs one of the capCountsSQL statements.
func purgeCapCounts(ctx context.Context, q querier, sql string, afterAccount int64, accounts int, before time.Time, perAccount int) (last *int64, deleted, most int, err error) {
	err = q.QueryRow(ctx, sql, afterAccount, accounts, before, perAccount).Scan(&last, &deleted, &most)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("purgeCapCounts: %w", err)
	}
	return last, deleted, most, nil
}

// purgeSignups deletes at most limit sign-ups made before before, the
// oldest first (the primary key: ids grow with sign-ups), skipping those
// a sign-up's own forgetting holds (it deletes them; the purge never
// waits for it), and says how many.
func purgeSignups(ctx context.Context, q querier, before time.Time, limit int) (int, error) {
	tag, err := q.Exec(ctx, `DELETE FROM signups WHERE id IN (
		SELECT id FROM signups WHERE at < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("purgeSignups: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// purgeOutboxSQL deletes, of the dev outbox's first $3 messages after id
// $1 (the primary key), those kept before $2. It says the last id it
// looked at (NULL: none left) and how many it deleted.
const purgeOutboxSQL = `WITH w AS (SELECT id, created_at FROM dev_outbox WHERE id > $1 ORDER BY id LIMIT $3),
	gone AS (DELETE FROM dev_outbox o USING w WHERE o.id = w.id AND w.created_at < $2 RETURNING 1)
	SELECT (SELECT max(id) FROM w), (SELECT count(*) FROM gone)`

// purgeOutbox runs purgeOutboxSQL.
func purgeOutbox(ctx context.Context, q querier, after int64, before time.Time, limit int) (last *int64, deleted int, err error) {
	if err := q.QueryRow(ctx, purgeOutboxSQL, after, before, limit).Scan(&last, &deleted); err != nil {
		return nil, 0, fmt.Errorf("purgeOutbox: %w", err)
	}
	return last, deleted, nil
}

// firstRoomFrom is the first room with an id from from and below below,
// and when it opened; ok false if there is none (by the primary key).
func firstRoomFrom(ctx context.Context, q querier, from, below int64) (id int64, opened time.Time, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT id, opened_at FROM rooms WHERE id >= $1 AND id < $2 ORDER BY id LIMIT 1`, from, below).Scan(&id, &opened)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, time.Time{}, false, nil
	}
	if err != nil {
		return 0, time.Time{}, false, fmt.Errorf("firstRoomFrom: %w", err)
	}
	return id, opened, true, nil
}

// lastRoomID is the highest room id (0: no room).
func lastRoomID(ctx context.Context, q querier) (int64, error) {
	var id int64
	if err := q.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM rooms`).Scan(&id); err != nil {
		return 0, fmt.Errorf("lastRoomID: %w", err)
	}
	return id, nil
}

// The room-keyed purges walk their table's primary key (room_id first)
// from $1 up to below $2 in windows: a window ends at the room id $3 rows
// further (so it holds about $3 rows, plus the rest of its last room's),
// and the statement deletes what in it is past its period. It says where
// the next window starts ($2: the walk is done) and how many rows it
// deleted.

// purgePersonDeliveriesSQL: a person's delivery log lines created before
// $4.
const purgePersonDeliveriesSQL = `WITH w AS (SELECT coalesce((SELECT room_id FROM person_deliveries
		WHERE room_id > $1 AND room_id < $2 ORDER BY room_id OFFSET $3 LIMIT 1), $2) AS hi),
	gone AS (DELETE FROM person_deliveries d
		WHERE d.room_id >= $1 AND d.room_id < (SELECT hi FROM w) AND d.created_at < $4 RETURNING 1)
	SELECT (SELECT hi FROM w), (SELECT count(*) FROM gone)`

// purgeOneTapsSQL: the one-tap tokens of rooms agreed or closed before $4
// (their row's last update), except the used token of an agreed room's
// applied confirmation that recorded no channel (answered before migration
// 00019): the room's receipt tells that answer's channel from the token
// (selectReceiptFacts).
const purgeOneTapsSQL = `WITH w AS (SELECT coalesce((SELECT room_id FROM onetap_tokens
		WHERE room_id > $1 AND room_id < $2 ORDER BY room_id OFFSET $3 LIMIT 1), $2) AS hi),
	old AS (SELECT o.room_id, o.token_hash FROM rooms r CROSS JOIN LATERAL (
		SELECT t.room_id, t.token_hash FROM onetap_tokens t WHERE t.room_id = r.id
		  AND (r.state = 'closed' OR t.used_at IS NULL OR (SELECT c.status = 'applied' AND c.channel IS NULL
			FROM confirmations c WHERE c.room_id = t.room_id AND c.id = t.confirmation_id) IS NOT TRUE)) o
		WHERE r.id >= $1 AND r.id < (SELECT hi FROM w) AND r.state IN ('agreed', 'closed') AND r.updated_at < $4),
	gone AS (DELETE FROM onetap_tokens t USING old
		WHERE t.room_id = old.room_id AND t.token_hash = old.token_hash RETURNING 1)
	SELECT (SELECT hi FROM w), (SELECT count(*) FROM gone)`

// purgeRoomWindow runs one of the room-keyed purges.
func purgeRoomWindow(ctx context.Context, q querier, sql string, from, below int64, rows int, before time.Time) (next int64, deleted int, err error) {
	if err := q.QueryRow(ctx, sql, from, below, rows, before).Scan(&next, &deleted); err != nil {
		return 0, 0, fmt.Errorf("purgeRoomWindow: %w", err)
	}
	return next, deleted, nil
}

// firstKeyedRoom is the lowest room id in table (person_deliveries or
// onetap_tokens), ok false when it is empty (the primary key's first
// entry).
func firstKeyedRoom(ctx context.Context, q querier, table string) (int64, bool, error) {
	var id *int64
	sql := `SELECT min(room_id) FROM person_deliveries`
	if table == "onetap_tokens" {
		sql = `SELECT min(room_id) FROM onetap_tokens`
	}
	if err := q.QueryRow(ctx, sql).Scan(&id); err != nil {
		return 0, false, fmt.Errorf("firstKeyedRoom %s: %w", table, err)
	}
	if id == nil {
		return 0, false, nil
	}
	return *id, true, nil
}

// The person's addresses in the rooms that ended are found through the
// partial indexes of migration 00029 (parties_person_email,
// rooms_invite_email), which hold only the rows that still have one: an
// open room's, a room's that ended within the period, and those not yet
// forgotten. A walk goes through one index in (lower(address), room id)
// order from after ($1, $2), a window of $3 rows per statement, and
// forgets the addresses of the rooms in it agreed or closed before $4 (the
// room row's last update), as a person's List-Unsubscribe link does
// (forgetInRoomsSQL). It says the window's last row (NULL: the walk is
// done) and how many rooms' addresses it forgot.
//
// A person's erasure changes the same seats, rooms, delivery lines and
// invitation jobs by one statement, in no set order, and two such
// statements deadlocked. So a walk's window is two statements in one
// transaction. The first (forgetLocksSQL) takes, as a writer of an
// address does (store_profile.go), a shared lock ($5: addressLockClass)
// on each address the window's ended rooms hold (their invitation's,
// their person's seat's: their invitation mails' jobs, read whole, are
// not read twice for the few whose room forgot its address before), in
// the order of their keys, and says those rooms; the second (forgetEndedSQL)
// forgets in them alone ($5), should the window have moved meanwhile. An
// erasure holds its exclusive lock before any row: one of the two waits
// before either locks a row.

// seatAddressesWindow walks the seats with an address.
const seatAddressesWindow = `SELECT lower(p.person_email) AS k, p.room_id AS id FROM parties p
		WHERE p.person_email IS NOT NULL AND lower(p.person_email) >= $1 AND (lower(p.person_email), p.room_id) > ($1, $2)
		ORDER BY lower(p.person_email), p.room_id LIMIT $3`

// inviteAddressesWindow walks the rooms with an invitation address
// (whether or not anyone answered).
const inviteAddressesWindow = `SELECT lower(r.invite_email) AS k, r.id FROM rooms r
		WHERE r.invite_email IS NOT NULL AND lower(r.invite_email) >= $1 AND (lower(r.invite_email), r.id) > ($1, $2)
		ORDER BY lower(r.invite_email), r.id LIMIT $3`

var (
	forgetSeatAddressesSQL        = forgetEndedSQL(seatAddressesWindow)
	forgetSeatAddressesLocksSQL   = forgetLocksSQL(seatAddressesWindow)
	forgetInviteAddressesSQL      = forgetEndedSQL(inviteAddressesWindow)
	forgetInviteAddressesLocksSQL = forgetLocksSQL(inviteAddressesWindow)
)

// goneSQL is the rooms of the window w that ended before $4.
const goneSQL = `gone AS (SELECT r.id FROM w JOIN rooms r ON r.id = w.id
			WHERE r.state IN ('agreed', 'closed') AND r.updated_at < $4`

// forgetLocksSQL is the first statement of a walk whose window is the
// query w (k, id).
func forgetLocksSQL(w string) string {
	return `WITH w AS (` + w + `),
		` + goneSQL + `),
		addresses AS (SELECT DISTINCT hashtext(lower(a.email)) AS k FROM gone JOIN rooms r ON r.id = gone.id
				LEFT JOIN parties p ON p.room_id = r.id AND p.side = 'b' AND p.account_id IS NULL
				CROSS JOIN LATERAL (VALUES (r.invite_email), (p.person_email)) a (email)
				WHERE a.email IS NOT NULL),
		locked AS (SELECT count(pg_advisory_xact_lock_shared($5, k)) AS n FROM (SELECT k FROM addresses ORDER BY k OFFSET 0) o)
		SELECT coalesce((SELECT array_agg(id) FROM gone), '{}'), (SELECT n FROM locked)`
}

// forgetEndedSQL is the second statement of a walk whose window is the
// query w (k, id): the rooms $5 of the window.
func forgetEndedSQL(w string) string {
	return `WITH w AS (` + w + `),
		` + goneSQL + ` AND r.id = ANY($5::bigint[])),
		old AS (SELECT p.room_id, p.side FROM gone JOIN parties p ON p.room_id = gone.id
			WHERE p.side = 'b' AND p.account_id IS NULL AND p.person_email IS NOT NULL FOR UPDATE OF p),
		` + forgetInRoomsSQL + `
		SELECT last.k, last.id, (SELECT count(*) FROM (SELECT id FROM invited UNION SELECT room_id FROM seated) f)
		FROM (SELECT NULL) one LEFT JOIN (SELECT k, id FROM w ORDER BY k DESC, id DESC LIMIT 1) last ON true`
}

// forgetEnded runs one window of a walk (locks: its forgetLocksSQL, sql:
// its forgetEndedSQL), in one transaction.
func forgetEnded(ctx context.Context, db *pgxpool.Pool, locks, sql, afterKey string, afterRoom int64, rows int, before time.Time) (lastKey *string, lastRoom *int64, forgotten int, err error) {
	err = pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var gone []int64
		var locked int64
		if err := tx.QueryRow(ctx, locks, afterKey, afterRoom, rows, before, int32(addressLockClass)).Scan(&gone, &locked); err != nil {
			return err
		}
		return tx.QueryRow(ctx, sql, afterKey, afterRoom, rows, before, gone).Scan(&lastKey, &lastRoom, &forgotten)
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("forgetEnded: %w", err)
	}
	return lastKey, lastRoom, forgotten, nil
}
