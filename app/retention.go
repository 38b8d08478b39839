package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/taasky/taasky/negotiation"
)

// Retention deletes the personal data that has served its purpose
// (jobs.PurgeWorker, hourly): delivery log lines (recipients' addresses,
// push services' hosts), one-tap link tokens of rooms that ended,
// webhook messages (their payloads) with their attempts once final, the
// mail the dev outbox kept (its one-tap links), and OAuth client
// registrations no person ever granted, the marks of limits older than
// negotiation.NoDealMarksKept (limit_marks), the caps' counts (invitation
// mails, sign-ups) past the day they count, and the people's sessions
// past their end (PurgeExpiredSessions); and it
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
//
// A purge has a budget (jobs.RetentionBudget), shared among its walks,
// and each walk carries on at the next purge where the last one stopped
// (cursors): a walk longer than a purge goes on over several, rather than
// walking again, every hour, the rows a purge's budget covers and never
// reaching those beyond. The cursors are kept in the process's memory:
// a walk is safe to repeat, so a restart only walks again from the start;
// with several nodes each has its own, and a walk goes on from where that
// node's last purge stopped (a pass then takes up to as many purges as
// there are nodes taking turns). The address walks' cursor is an address
// (their index's order), which a table must not keep.
type Retention struct {
	pool    *pgxpool.Pool
	periods RetentionPeriods
	// clock reads the time the budget is measured with (time.Now; tests
	// count with it).
	clock func() time.Time

	mu      sync.Mutex
	cursors retentionCursors
}

// retentionCursors are where each walk's next purge starts (zero: from
// the start).
type retentionCursors struct {
	deliveryUser              int64            // the last user walked
	capAccounts               map[string]int64 // the last account walked, by table of cap counts
	hookAccount, hookEndpoint int64            // the last endpoint walked
	rooms                     map[string]int64 // the next window's first room, by table
	addresses                 map[string]addressCursor
}

// addressCursor is the last row an address walk looked at.
type addressCursor struct {
	key  string
	room int64
}

// RetentionPeriods are how long each kind of data is kept; 0 keeps it for
// good.
type RetentionPeriods struct {
	// DeliveryLog: a delivery log line (a user's, or a person's in a
	// room), from its creation. Every delivery job has finished within
	// hours (8 attempts at most), so a line that old is final. And a
	// mail the dev outbox kept, from when it was (purgeOutbox).
	DeliveryLog time.Duration
	// OneTap: a one-tap token, from the end of its room (the room row's
	// last update once agreed or closed): until then a late tap still
	// says what became of its confirmation. The person's address in the
	// room is forgotten after the same period: nothing was mailed to it
	// since the room ended but its last notice (retried for hours at most),
	// and a late tap is not answered either.
	OneTap time.Duration
	// Webhooks: a webhook message that reached its final status, and its
	// attempts, from its last attempt (one its job left unfinished: at
	// least webhookJobsEnd).
	Webhooks time.Duration
	// OAuthClients: an OAuth client no person ever granted (no consent,
	// so no code or token either), from its registration (or its metadata
	// document's first fetch: fetched again when needed). Anyone may
	// register clients; one granted once is kept for good.
	OAuthClients time.Duration
}

// AccountsBeingDeleted lists the accounts whose deletion began before
// before and is not done (jobs.PurgeWorker queues their jobs again).
func (r *Retention) AccountsBeingDeleted(ctx context.Context, before time.Time) ([]int64, error) {
	return selectAccountsBeingDeleted(ctx, r.pool, before)
}

// NewRetention is the purge of what outlived periods, on pool.
func NewRetention(pool *pgxpool.Pool, periods RetentionPeriods) *Retention {
	return &Retention{pool: pool, periods: periods, clock: time.Now,
		cursors: retentionCursors{rooms: map[string]int64{}, addresses: map[string]addressCursor{}, capAccounts: map[string]int64{}}}
}

// The batches: at most about this many rows per statement.
const (
	purgeUsersPerStatement     = 100 // × purgePerUser delivery log lines
	purgePerUser               = 50
	purgeEndpointsPerStatement = 50 // × purgePerEndpoint webhook messages
	purgePerEndpoint           = 100
	purgeRoomWindowRows        = 2000 // rows of a room-keyed table looked at
	forgetAddressWindowRows    = 500  // seats or rooms with an address looked at
	purgeClientsPerStatement   = 500  // ungranted OAuth clients (up to ~16 KiB each)
	purgeLimitMarksStatements  = 50   // × purgeRoomWindowRows limit marks a purge at least (100,000 an hour), more within the budget
	purgeCapStatements         = 50   // statements a purge, of each table of the caps' counts
	purgeAccountsPerStatement  = 100  // × purgePerAccount cap counts
	purgePerAccount            = 200
	purgeSignupsPerStatement   = 1000
	purgeOutboxPerStatement    = 200 // dev outbox messages looked at (a mail, up to some tens of KiB each)
)

// capCountsKept is how long the caps' counts (the invitation mails of an
// account, the sign-ups of a person) are kept: the 24 hours the caps count
// over, and an hour more, so that a purger whose clock runs a little ahead
// never takes a count a cap still reads. Not a setting: past it a count
// counts for nothing.
const capCountsKept = inviteCapWindow + time.Hour

// PurgeOld deletes what has outlived its period at now, a batch per
// statement, until it is done or end has passed (the next purge carries
// on). Each walk has a share of what is left of the budget when it starts
// (what is left, over the walks left): one with much to do cannot keep the
// others from theirs. It says how many rows it deleted of each table, and
// of how many rooms it forgot the person's address ("person_addresses").
func (r *Retention) PurgeOld(ctx context.Context, now, end time.Time) (map[string]int, error) {
	out := map[string]int{}
	type step struct {
		table  string
		period time.Duration
		purge  func(context.Context, time.Time, time.Time) (int, error)
	}
	// Not a setting, nor a share of the budget: the rule between two
	// accounts counts 30 days, and its marks go after them, by the
	// database's clock, which a join reads them by.
	marksLeft := false
	if n, err := r.purgeLimitMarks(ctx, now, func(i int) bool { return i < purgeLimitMarksStatements }); n > 0 || err != nil {
		out["limit_marks"] = n
		if err != nil {
			return out, fmt.Errorf("purge limit_marks: %w", err)
		}
		marksLeft = n == purgeLimitMarksStatements*purgeRoomWindowRows
	}
	// Nor are the caps' counts, a day old (a few statements: the caps keep
	// them few).
	if n, err := r.purgeCapCounts(ctx, now.Add(-capCountsKept)); n > 0 || err != nil {
		out["invite_counts"] = n
		if err != nil {
			return out, fmt.Errorf("purge invite counts: %w", err)
		}
	}
	if n, err := r.purgeSignups(ctx, now.Add(-capCountsKept)); n > 0 || err != nil {
		out["signups"] = n
		if err != nil {
			return out, fmt.Errorf("purge signups: %w", err)
		}
	}
	var steps []step
	for _, s := range []step{
		{"notification_deliveries", r.periods.DeliveryLog, r.purgeDeliveryLog},
		{"person_deliveries", r.periods.DeliveryLog, r.purgePersonDeliveries},
		{"dev_outbox", r.periods.DeliveryLog, r.purgeOutbox},
		{"onetap_tokens", r.periods.OneTap, r.purgeOneTaps},
		{"person_addresses", r.periods.OneTap, r.forgetSeatAddresses},
		{"person_addresses", r.periods.OneTap, r.forgetInviteAddresses},
		{"webhook_messages", r.periods.Webhooks, r.purgeWebhooks},
		{"oauth_clients", r.periods.OAuthClients, r.purgeUngrantedClients},
	} {
		if s.period > 0 {
			steps = append(steps, s)
		}
	}
	// Marks left past the statements above (joins faster than they
	// delete) go on with a share of the budget, the last one: what the
	// other walks leave of it.
	if marksLeft {
		steps = append(steps, step{"limit_marks", 1, func(ctx context.Context, _, end time.Time) (int, error) {
			return r.purgeLimitMarks(ctx, now, func(int) bool { return r.clock().Before(end) })
		}})
	}
	for i, s := range steps {
		at := r.clock()
		if !at.Before(end) {
			break
		}
		n, err := s.purge(ctx, now.Add(-s.period), at.Add(end.Sub(at)/time.Duration(len(steps)-i)))
		if n > 0 {
			out[s.table] += n
		}
		if err != nil {
			return out, fmt.Errorf("purge %s: %w", s.table, err)
		}
	}
	return out, nil
}

// cursor runs fn with the walks' cursors (under the lock: two purges of a
// process at once may walk the same rows, but not corrupt a cursor).
func (r *Retention) cursor(fn func(c *retentionCursors)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(&r.cursors)
}

// purgeDeliveryLog deletes the users' delivery log lines created before
// before, user after user (by id), from after the user its last purge
// stopped at.
func (r *Retention) purgeDeliveryLog(ctx context.Context, before, end time.Time) (int, error) {
	var after int64
	r.cursor(func(c *retentionCursors) { after = c.deliveryUser })
	total := 0
	defer func() { r.cursor(func(c *retentionCursors) { c.deliveryUser = after }) }()
	for r.clock().Before(end) {
		last, n, most, err := purgeDeliveryLog(ctx, r.pool, after, purgeUsersPerStatement, before, purgePerUser)
		total += n
		if err != nil {
			return total, err
		}
		if last == nil { // done: the next purge starts over
			after = 0
			return total, nil
		}
		if most < purgePerUser { // else the same users again: one has more
			after = *last
		}
	}
	return total, nil
}

// purgeOutbox deletes the mail the dev outbox kept (taasky dev, or a
// serve without SMTP_URL, which shows it nowhere) before before, from the
// oldest (the primary key: ids grow with the time a mail was kept), a
// window of rows per statement, until a window holds none that old (the
// rest are newer; a window holding some, and some a little newer that
// two deliveries at once wrote out of order, goes on). No cursor: what it
// deleted is not read again.
//
// Its period is the delivery log's (RetentionPeriods.DeliveryLog), from
// when the mail was kept: the setting that bounds its one-tap links' use.
// A link confirms terms only while its room is open, and a room closes at
// its deadline, at most negotiation.MaxDeadline (90 days) after it opened,
// which was before the mail: the default period, 90 days, outlives every
// link a mail carries (a shorter one deletes the mail sooner, as it does
// the log line of its sending). RetentionPeriods.OneTap counts from the
// end of a room, which the outbox does not know: 30 days from the mail
// would delete it while a room open longer still takes its link.
func (r *Retention) purgeOutbox(ctx context.Context, before, end time.Time) (int, error) {
	var after int64
	total := 0
	for r.clock().Before(end) {
		last, n, err := purgeOutbox(ctx, r.pool, after, before, purgeOutboxPerStatement)
		total += n
		if err != nil || last == nil || n == 0 {
			return total, err
		}
		after = *last
	}
	return total, nil
}

// webhookJobsEnd is longer than any webhook message's job lives: its
// retries end within about 27 hours (jobs.WebhookArgs; a job queued by a
// build before 2026-12-06, within three weeks). A message neither sent,
// failed nor skipped, tried last (or made) longer ago, has no job left to
// finish it: cancelled in /admin/jobs, or its process died in its last
// attempt.
const webhookJobsEnd = 30 * 24 * time.Hour

// purgeWebhooks deletes the final webhook messages last tried before
// before, and those left unfinished by their job last tried before
// before and webhookJobsEnd ago, endpoint after endpoint, from after the
// endpoint its last purge stopped at.
func (r *Retention) purgeWebhooks(ctx context.Context, before, end time.Time) (int, error) {
	unfinished := before.Add(-max(0, webhookJobsEnd-r.periods.Webhooks))
	var account, endpoint int64
	r.cursor(func(c *retentionCursors) { account, endpoint = c.hookAccount, c.hookEndpoint })
	defer func() { r.cursor(func(c *retentionCursors) { c.hookAccount, c.hookEndpoint = account, endpoint }) }()
	total := 0
	for r.clock().Before(end) {
		lastAccount, lastEndpoint, n, most, err := purgeWebhookMessages(ctx, r.pool, account, endpoint,
			purgeEndpointsPerStatement, before, unfinished, purgePerEndpoint)
		total += n
		if err != nil {
			return total, err
		}
		if lastAccount == nil {
			account, endpoint = 0, 0
			return total, nil
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

// purgeRooms walks table (keyed by room first) from its first room, or
// from where its last purge stopped, to the first room opened at or after
// before, a window of rows per statement (purgeRoomWindow).
func (r *Retention) purgeRooms(ctx context.Context, table, sql string, before, end time.Time) (int, error) {
	from, ok, err := firstKeyedRoom(ctx, r.pool, table)
	if err != nil || !ok {
		return 0, err
	}
	r.cursor(func(c *retentionCursors) { from = max(from, c.rooms[table]) })
	below, err := r.firstRoomOpenedFrom(ctx, before)
	if err != nil {
		return 0, err
	}
	total := 0
	defer func() {
		r.cursor(func(c *retentionCursors) {
			if from >= below { // done: the next purge starts over
				from = 0
			}
			c.rooms[table] = from
		})
	}()
	for from < below && r.clock().Before(end) {
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

// forgetSeatAddresses and forgetInviteAddresses forget the person's
// address of the rooms that ended before before, as their List-Unsubscribe
// link does: the seat's (a person who answered in the browser), the
// invitation's, the recipients of their delivery log and of the invitation
// mail's finished job. Nothing is mailed to a person about a room after it
// ended, and their personal link opens it without the address. Each walk
// reads only the rows that still hold an address, from after the row its
// last purge stopped at: those of rooms still open, or ended within the
// period, are walked again only once the walk has reached the end.
func (r *Retention) forgetSeatAddresses(ctx context.Context, before, end time.Time) (int, error) {
	return r.forgetAddresses(ctx, "seats", forgetSeatAddressesLocksSQL, forgetSeatAddressesSQL, before, end)
}

func (r *Retention) forgetInviteAddresses(ctx context.Context, before, end time.Time) (int, error) {
	return r.forgetAddresses(ctx, "invitations", forgetInviteAddressesLocksSQL, forgetInviteAddressesSQL, before, end)
}

func (r *Retention) forgetAddresses(ctx context.Context, walk, locks, sql string, before, end time.Time) (int, error) {
	var at addressCursor
	r.cursor(func(c *retentionCursors) { at = c.addresses[walk] })
	defer func() { r.cursor(func(c *retentionCursors) { c.addresses[walk] = at }) }()
	total := 0
	for r.clock().Before(end) {
		lastKey, lastRoom, n, err := forgetEnded(ctx, r.pool, locks, sql, at.key, at.room, forgetAddressWindowRows, before)
		total += n
		if err != nil {
			return total, err
		}
		if lastKey == nil { // done: the next purge starts over
			at = addressCursor{}
			return total, nil
		}
		at = addressCursor{*lastKey, *lastRoom}
	}
	return total, nil
}

// PurgeExpiredSessions deletes at most limit of the people's sessions
// that expired before before (an ended one was deleted when it ended),
// the oldest first, through their index (the live ones are never read),
// and says how many (jobs.PurgeWorker's Sessions: whatever the periods).
// before nil: the database's clock, by which sessions end.
func (r *Retention) PurgeExpiredSessions(ctx context.Context, before *time.Time, limit int) (int, error) {
	return purgeExpiredSessions(ctx, r.pool, before, limit)
}

// purgeUngrantedClients deletes the OAuth clients never granted and
// registered before before, oldest first, a batch per statement, through
// the index of ungranted clients alone (no cursor: the clients not yet due
// are never read). A client whose registration is gone is told
// invalid_client, and registers again (docs/agents.md).
func (r *Retention) purgeUngrantedClients(ctx context.Context, before, end time.Time) (int, error) {
	total := 0
	for r.clock().Before(end) {
		n, err := deleteUngrantedOAuthClients(ctx, r.pool, before, purgeClientsPerStatement)
		total += n
		if err != nil || n < purgeClientsPerStatement {
			return total, err
		}
	}
	return total, nil
}

// purgeLimitMarks deletes the limits' marks older than
// negotiation.NoDealMarksKept at now (or at the database's clock, if it
// is earlier: the store's purgeLimitMarks), a batch
// per statement, the oldest first (their index), until none is left or
// more says no more (before the i-th statement; the next purge, an hour
// later, carries on).
func (r *Retention) purgeLimitMarks(ctx context.Context, now time.Time, more func(i int) bool) (int, error) {
	total := 0
	for i := 0; more(i); i++ {
		n, err := purgeLimitMarks(ctx, r.pool, now, negotiation.NoDealMarksKept, purgeRoomWindowRows)
		total += n
		if err != nil || n < purgeRoomWindowRows {
			return total, err
		}
	}
	return total, nil
}

// capCountTables are the caps' counts kept per account, with their
// statements.
var capCountTables = []struct{ table, sql string }{
	{"invite_emails", purgeInviteCountsSQL},
	{"member_invite_emails", purgeMemberInviteCountsSQL},
}

// purgeCapCounts deletes the invitation caps' counts (room invitations'
// and invitations to join) made before before, account after account (by
// id, only those holding counts), from after the account its last purge
// stopped at, at most purgeCapStatements statements a table. An
// invitation forgets its account's old counts too, but an account that
// invites no more, or an installation without a cap, kept them for good.
func (r *Retention) purgeCapCounts(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for _, t := range capCountTables {
		var after int64
		r.cursor(func(c *retentionCursors) { after = c.capAccounts[t.table] })
		var err error
		for range purgeCapStatements {
			var last *int64
			var n, most int
			last, n, most, err = purgeCapCounts(ctx, r.pool, t.sql, after, purgeAccountsPerStatement, before, purgePerAccount)
			total += n
			if err != nil {
				break
			}
			if last == nil { // done: the next purge starts over
				after = 0
				break
			}
			if most < purgePerAccount { // else the same accounts again: one has more
				after = *last
			}
		}
		r.cursor(func(c *retentionCursors) { c.capAccounts[t.table] = after })
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// purgeSignups deletes the sign-ups made before before (the sign-up cap's
// counts), a batch per statement, at most purgeCapStatements. A sign-up
// forgets the old ones too, but with none after it they were kept for
// good.
func (r *Retention) purgeSignups(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for range purgeCapStatements {
		n, err := purgeSignups(ctx, r.pool, before, purgeSignupsPerStatement)
		total += n
		if err != nil || n < purgeSignupsPerStatement {
			return total, err
		}
	}
	return total, nil
}
