package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The SQL of PostgreSQL's notifications: listening to a channel (Listen),
// notifying one (the listener's probes), and announcing changed rooms
// (announcer).

// listenOn makes the connection listen to channel.
func listenOn(ctx context.Context, q querier, channel string) error {
	if _, err := q.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("listenOn %s: %w", channel, err)
	}
	return nil
}

// pgNotify sends payload on channel once the statement's transaction commits
// (at once outside one).
func pgNotify(ctx context.Context, q querier, channel, payload string) error {
	if _, err := q.Exec(ctx, "SELECT pg_notify($1, $2)", channel, payload); err != nil {
		return fmt.Errorf("pgNotify %s: %w", channel, err)
	}
	return nil
}

// announceSQL notifies RoomChannel of each room, in a transaction of its
// own that commits without waiting for the disk: it writes nothing that
// needs to last, the changes it tells of being durable already.
//
// PostgreSQL lets one notifying transaction commit at a time, holding a
// lock from before its commit until the commit record is on disk. A NOTIFY
// inside each move made every move in the database wait for the notifying
// commits before it to be flushed one by one, where commits without it
// share a flush: in `taasky bench`, `Lock: object` at commit was
// PostgreSQL's first wait, and however fast the machine, moves could not
// commit faster than one disk flush each. Announced apart and batched,
// the lock is held for microseconds, once for many moves.
const announceSQL = `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, id::text)
	FROM unnest($2::bigint[]) AS id`

// announceRooms notifies RoomChannel of each room (announceSQL).
func announceRooms(ctx context.Context, q querier, rooms []int64) error {
	if _, err := q.Exec(ctx, announceSQL, RoomChannel, rooms); err != nil {
		return fmt.Errorf("announceRooms: %w", err)
	}
	return nil
}
