package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The sweep's SQL: what falls due by time, read through the partial
// indexes of migrations 00013 (rooms_due, confirmations_remind) and 00031
// (rooms_person_remind), so a sweep reads only what is due, however many
// live rooms wait.

// roomDue is rooms_due's expression, a live room's due moment
// (negotiation.Room.DueAt); the queries must spell it as the index does.
const roomDue = `(CASE WHEN state = 'draft' THEN least(expires_at, deadline) ELSE deadline END)`

// dueRoomsSQL lists live rooms due at $1 (NULL: the database's clock),
// the earliest due first, at most $2.
const dueRoomsSQL = `SELECT id FROM rooms WHERE state IN ('draft', 'awaiting') AND ` + roomDue + ` <= coalesce($1::timestamptz, statement_timestamp())
	ORDER BY ` + roomDue + ` LIMIT $2`

// selectDueRooms lists at most limit rooms due at now (nil: the
// database's clock, Rooms.dbMoment), the earliest due first. It locks nothing: each is then closed in a transaction of its
// own, which locks the room and asks the protocol whether it is due.
func selectDueRooms(ctx context.Context, q querier, now *time.Time, limit int) ([]int64, error) {
	rows, err := q.Query(ctx, dueRoomsSQL, now, limit)
	if err != nil {
		return nil, fmt.Errorf("selectDueRooms: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectDueRooms: %w", err)
	}
	return ids, nil
}

// dueReminder is a pending confirmation whose next reminder is due, with
// what deciding and addressing it needs.
type dueReminder struct {
	roomID      int64
	id          string
	side        negotiation.Side
	requestedAt time.Time
	remindAt    *time.Time // nil: never planned (written without remind_at)
	deadline    time.Time
	// remind: the side's human; for a side whose human left the account,
	// its owners (who answer for it, Accounts.RemoveMember); none for a
	// deleted account. (A person answering in the browser has no
	// confirmations: they are reminded of their turn, duePersonReminder.)
	remind []int64
	dbNow  time.Time // the database's clock (the sweep's transaction's)
}

// dueRemindersSQL: pending confirmations whose reminder is due at $1, the
// earliest first, at most $2, locked. SKIP LOCKED: a confirmation another
// sweep holds, or a move is settling, is left to them (the next sweep
// finds it if it still waits). NO KEY UPDATE, the lock an update of
// remind_at takes anyway: it does not conflict with the key-share locks
// that rows referring to the confirmation take (a one-tap token being
// issued for its request), which must not make the sweep skip it.
const dueRemindersSQL = `SELECT c.room_id, c.id, c.side, c.requested_at,
		CASE WHEN c.remind_at = '-infinity' THEN NULL ELSE c.remind_at END, r.deadline,
		CASE WHEN p.owner_user_id IS NOT NULL THEN ARRAY[p.owner_user_id]
			ELSE ARRAY(SELECT m.user_id FROM memberships m
				WHERE m.account_id = p.account_id AND m.role = 'owner' ORDER BY m.user_id) END, now()
	FROM confirmations c JOIN rooms r ON r.id = c.room_id
	LEFT JOIN parties p ON p.room_id = c.room_id AND p.side = c.side
	WHERE c.status = 'pending' AND c.remind_at <= coalesce($1::timestamptz, now())
	ORDER BY c.remind_at LIMIT $2
	FOR NO KEY UPDATE OF c SKIP LOCKED`

// selectDueReminders reads and locks, in the caller's transaction, at most
// limit pending confirmations whose next reminder is due at now (nil: the
// database's clock, the transaction's now(), which each comes with).
func selectDueReminders(ctx context.Context, tx pgx.Tx, now *time.Time, limit int) ([]dueReminder, error) {
	rows, err := tx.Query(ctx, dueRemindersSQL, now, limit)
	if err != nil {
		return nil, fmt.Errorf("selectDueReminders: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (dueReminder, error) {
		var d dueReminder
		err := row.Scan(&d.roomID, &d.id, &d.side, &d.requestedAt, &d.remindAt, &d.deadline, &d.remind, &d.dbNow)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectDueReminders: %w", err)
	}
	return out, nil
}

// updateRemindAt sets the next reminder of each confirmation (nil: none
// left), in one statement; a confirmation no longer pending is left as it
// is.
func updateRemindAt(ctx context.Context, tx pgx.Tx, ds []dueReminder, next []*time.Time) error {
	if len(ds) == 0 {
		return nil
	}
	rooms, ids := make([]int64, len(ds)), make([]string, len(ds))
	for i, d := range ds {
		rooms[i], ids[i] = d.roomID, d.id
	}
	_, err := tx.Exec(ctx, `UPDATE confirmations c SET remind_at = u.at
		FROM unnest($1::bigint[], $2::text[], $3::timestamptz[]) AS u (room_id, id, at)
		WHERE c.room_id = u.room_id AND c.id = u.id AND c.status = 'pending'`, rooms, ids, next)
	if err != nil {
		return fmt.Errorf("updateRemindAt: %w", err)
	}
	return nil
}

// duePersonReminder is a room whose person's next reminder of their turn
// is due (migration 00031), with what deciding and addressing it needs.
type duePersonReminder struct {
	roomID   int64
	seq      int // the room's log length: the turn the reminder is of
	turnAt   time.Time
	remindAt *time.Time // nil: never planned (a turn migration 00031 found)
	deadline time.Time
	email    string    // "": they asked for no more email (nothing is sent)
	dbNow    time.Time // the database's clock (the sweep's transaction's)
}

// duePersonRemindersSQL: rooms whose person's reminder is due at $1, the
// earliest first, at most $2, through rooms_person_remind, locked as
// dueRemindersSQL locks confirmations (a room a move holds is left to the
// next sweep; the move may end the turn). A turn that is no longer the
// person's has its moments cleared by the move that ended it.
const duePersonRemindersSQL = `SELECT r.id, r.seq, r.person_turn_at,
		CASE WHEN r.person_remind_at = '-infinity' THEN NULL ELSE r.person_remind_at END, r.deadline, coalesce(p.person_email, ''), now()
	FROM rooms r LEFT JOIN parties p ON p.room_id = r.id AND p.side = 'b' AND p.account_id IS NULL
	WHERE r.person_remind_at <= coalesce($1::timestamptz, now())
	ORDER BY r.person_remind_at LIMIT $2
	FOR NO KEY UPDATE OF r SKIP LOCKED`

// selectDuePersonReminders reads and locks, in the caller's transaction,
// at most limit rooms whose person's reminder is due at now (nil: the
// database's clock, as selectDueReminders).
func selectDuePersonReminders(ctx context.Context, tx pgx.Tx, now *time.Time, limit int) ([]duePersonReminder, error) {
	rows, err := tx.Query(ctx, duePersonRemindersSQL, now, limit)
	if err != nil {
		return nil, fmt.Errorf("selectDuePersonReminders: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (duePersonReminder, error) {
		var d duePersonReminder
		var turnAt *time.Time
		err := row.Scan(&d.roomID, &d.seq, &turnAt, &d.remindAt, &d.deadline, &d.email, &d.dbNow)
		if turnAt != nil {
			d.turnAt = *turnAt
		}
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectDuePersonReminders: %w", err)
	}
	return out, nil
}

// updatePersonRemindAt sets the next reminder of each room's person (nil:
// none left), in one statement.
func updatePersonRemindAt(ctx context.Context, tx pgx.Tx, ds []duePersonReminder, next []*time.Time) error {
	if len(ds) == 0 {
		return nil
	}
	rooms := make([]int64, len(ds))
	for i, d := range ds {
		rooms[i] = d.roomID
	}
	_, err := tx.Exec(ctx, `UPDATE rooms r SET person_remind_at = u.at
		FROM unnest($1::bigint[], $2::timestamptz[]) AS u (id, at)
		WHERE r.id = u.id AND r.person_remind_at IS NOT NULL`, rooms, next)
	if err != nil {
		return fmt.Errorf("updatePersonRemindAt: %w", err)
	}
	return nil
}
