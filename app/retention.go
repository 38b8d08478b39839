package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Retention deletes the personal data that has served its purpose
// (jobs.PurgeWorker, hourly): delivery log lines (recipients' addresses,
// push services' hosts), one-tap link tokens of rooms that ended, and
// webhook messages (their payloads) with their attempts once final; and it
// forgets the person's address of rooms that ended (the seat's and the
// invitation's, as their List-Unsubscribe link does). The agreement's
// record (rooms, events, confirmations, receipts, notes), the audit log
// and what a refusal or a cap needs are never deleted.
//
// Every statement deletes (or forgets the addresses of) a bounded batch
// through a primary key or an existing index, so a purge never holds many
// locks or long ones, and nothing is added to what a move writes. Deleting twice, late, or on two
// nodes at once deletes the same rows once: a row another purge deleted
// meanwhile is skipped.
type Retention struct {
	pool    *pgxpool.Pool
	periods RetentionPeriods
}

// RetentionPeriods are how long each kind of data is kept; 0 keeps it for
// good.
type RetentionPeriods struct {
	// DeliveryLog: a delivery log line (a user's, or a person's in a
	// room), from its creation. Every delivery job has finished within
	// hours (8 attempts at most), so a line that old is final.
	DeliveryLog time.Duration
	// OneTap: a one-tap token, from the end of its room (the room row's
	// last update once agreed or closed): until then a late tap still
	// says what became of its confirmation. The person's address in the
	// room is forgotten after the same period: nothing was mailed to it
	// since the room ended but its last notice (retried for hours at most),
	// and a late tap is not answered either.
	OneTap time.Duration
	// Webhooks: a webhook message that reached its final status, and its
	// attempts, from its last attempt.
	Webhooks time.Duration
}

// NewRetention is the purge of what outlived periods, on pool.
func NewRetention(pool *pgxpool.Pool, periods RetentionPeriods) *Retention {
	return &Retention{pool: pool, periods: periods}
}

// The batches: at most about this many rows per statement.
const (
	purgeUsersPerStatement     = 100 // × purgePerUser delivery log lines
	purgePerUser               = 50
	purgeEndpointsPerStatement = 50 // × purgePerEndpoint webhook messages
	purgePerEndpoint           = 100
	purgeRoomWindowRows        = 2000 // rows of a room-keyed table looked at
	forgetAddressWindowRows    = 500  // seats or rooms with an address looked at
)

// PurgeOld deletes what has outlived its period at now, a batch per
// statement, until it is done or end has passed (the next purge carries
// on). It says how many rows it deleted of each table, and of how many
// rooms it forgot the person's address ("person_addresses").
func (r *Retention) PurgeOld(ctx context.Context, now, end time.Time) (map[string]int, error) {
	out := map[string]int{}
	steps := []struct {
		table  string
		period time.Duration
		purge  func(context.Context, time.Time, time.Time) (int, error)
	}{
		{"notification_deliveries", r.periods.DeliveryLog, r.purgeDeliveryLog},
		{"person_deliveries", r.periods.DeliveryLog, r.purgePersonDeliveries},
		{"onetap_tokens", r.periods.OneTap, r.purgeOneTaps},
		{"person_addresses", r.periods.OneTap, r.forgetPersonAddresses},
		{"webhook_messages", r.periods.Webhooks, r.purgeWebhooks},
	}
	for _, s := range steps {
		if s.period <= 0 || !time.Now().Before(end) {
			continue
		}
		n, err := s.purge(ctx, now.Add(-s.period), end)
		if n > 0 {
			out[s.table] = n
		}
		if err != nil {
			return out, fmt.Errorf("purge %s: %w", s.table, err)
		}
	}
	return out, nil
}

// purgeDeliveryLog deletes the users' delivery log lines created before
// before, user after user (by id).
func (r *Retention) purgeDeliveryLog(ctx context.Context, before, end time.Time) (int, error) {
	total, after := 0, int64(0)
	for time.Now().Before(end) {
		last, n, most, err := purgeDeliveryLog(ctx, r.pool, after, purgeUsersPerStatement, before, purgePerUser)
		total += n
		if err != nil || last == nil {
			return total, err
		}
		if most < purgePerUser { // else the same users again: one has more
			after = *last
		}
	}
	return total, nil
}

// purgeWebhooks deletes the final webhook messages last tried before
// before, endpoint after endpoint.
func (r *Retention) purgeWebhooks(ctx context.Context, before, end time.Time) (int, error) {
	total := 0
	var account, endpoint int64
	for time.Now().Before(end) {
		lastAccount, lastEndpoint, n, most, err := purgeWebhookMessages(ctx, r.pool, account, endpoint,
			purgeEndpointsPerStatement, before, purgePerEndpoint)
		total += n
		if err != nil || lastAccount == nil {
			return total, err
		}
		if most < purgePerEndpoint {
			account, endpoint = *lastAccount, *lastEndpoint
		}
	}
	return total, nil
}

// purgePersonDeliveries deletes the persons' delivery log lines created
// before before. A line is written while its room is open, so its room
// opened before it: only rooms opened before before are walked.
func (r *Retention) purgePersonDeliveries(ctx context.Context, before, end time.Time) (int, error) {
	return r.purgeRooms(ctx, "person_deliveries", purgePersonDeliveriesSQL, before, end)
}

// purgeOneTaps deletes the one-tap tokens of rooms that ended before
// before; such a room opened before it, so only those rooms are walked.
func (r *Retention) purgeOneTaps(ctx context.Context, before, end time.Time) (int, error) {
	return r.purgeRooms(ctx, "onetap_tokens", purgeOneTapsSQL, before, end)
}

// purgeRooms walks table (keyed by room first) from its first room to the
// first room opened at or after before, a window of rows per statement
// (purgeRoomWindow).
func (r *Retention) purgeRooms(ctx context.Context, table, sql string, before, end time.Time) (int, error) {
	from, ok, err := firstKeyedRoom(ctx, r.pool, table)
	if err != nil || !ok {
		return 0, err
	}
	below, err := r.firstRoomOpenedFrom(ctx, before)
	if err != nil {
		return 0, err
	}
	total := 0
	for from < below && time.Now().Before(end) {
		next, n, err := purgeRoomWindow(ctx, r.pool, sql, from, below, purgeRoomWindowRows, before)
		total += n
		if err != nil {
			return total, err
		}
		from = next
	}
	return total, nil
}

// firstRoomOpenedFrom is the id of the first room opened at or after at
// (the last room's id + 1 if none was), found by bisecting the rooms'
// primary key: room ids grow with their opening. The deletions do not
// rely on it (each checks the row's own time); it only bounds the walk.
func (r *Retention) firstRoomOpenedFrom(ctx context.Context, at time.Time) (int64, error) {
	last, err := lastRoomID(ctx, r.pool)
	if err != nil {
		return 0, err
	}
	// Rooms below lo opened before at; rooms from hi on, at or after it.
	lo, hi := int64(0), last+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		id, opened, ok, err := firstRoomFrom(ctx, r.pool, mid, hi)
		switch {
		case err != nil:
			return 0, err
		case ok && opened.Before(at):
			lo = id + 1
		default:
			hi = mid
		}
	}
	return lo, nil
}

// forgetPersonAddresses forgets the person's address of the rooms that
// ended before before, as their List-Unsubscribe link does: the seat's (a
// person who answered in the browser), the invitation's, the recipients of
// their delivery log and of the invitation mail's finished job. Nothing is
// mailed to a person about a room after it ended, and their personal link
// opens it without the address. Both walks start over at each purge: they
// read only the rows that still hold an address.
func (r *Retention) forgetPersonAddresses(ctx context.Context, before, end time.Time) (int, error) {
	total := 0
	for _, sql := range []string{forgetSeatAddressesSQL, forgetInviteAddressesSQL} {
		key, room := "", int64(0)
		for time.Now().Before(end) {
			lastKey, lastRoom, n, err := forgetEnded(ctx, r.pool, sql, key, room, forgetAddressWindowRows, before)
			total += n
			if err != nil {
				return total, err
			}
			if lastKey == nil {
				break
			}
			key, room = *lastKey, *lastRoom
		}
	}
	return total, nil
}
