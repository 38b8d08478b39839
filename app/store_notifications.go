package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// The notifications' SQL: notification_prefs, what a notice reads,
// notification_deliveries, invite_emails. Push subscriptions and the dev
// outbox are in store_notifications_push.go.

// recipient is what the fan-out needs of a human: where to write and what
// they allow.
type recipient struct {
	email string
	lang  string // their language, else their pages' (page_language), else their provider's locale ("": the default)
	prefs NotifyPrefs
	subs  []subRef
}

type subRef struct {
	id   int64
	host string
}

// notificationSQL is everything a notice about a room needs, as of one
// moment: the room ($1) with the context and the names of side $2's human,
// the recipient's ($3) address, time zone, preferences, and device $4 (a push's),
// the room's receipt once it is agreed, and when the first earlier message
// job $5 waits for runs next (earlierCTE; NULL: none).
var notificationSQL = `WITH ` + earlierCTE + `
	` + noticeCols + noticeFrom

// notificationOneTapSQL is notificationSQL of a request or a reminder: the
// same statement also stores its one-tap token ($7, hashed) for side $2's
// confirmation $8, sent to user $3 by channel $6 at $9, if that confirmation is still
// pending as of the statement's moment and the message waits for no earlier
// one, and says whether it did. The token is stored only while user $3
// still answers for the side: its human, or an owner of its account once
// the side has none (askOwners). The side's row, and that owner's
// membership, are locked FOR SHARE: a removal, a demotion or the
// account's deletion, which stop the links of who no longer answers,
// either commit first (the row read again then says so, and no token is
// stored) or wait for this statement and then stop the token it stored.
// Read from the statement's snapshot alone, a link was issued and mailed
// to a member removed meanwhile, and answered for the seat after.
var notificationOneTapSQL = `WITH ` + earlierCTE + `, issued AS (INSERT INTO onetap_tokens (room_id, token_hash, confirmation_id, channel, created_at, user_id)
		SELECT c.room_id, $7, c.id, $6, $9, $3 FROM confirmations c
		WHERE c.room_id = $1 AND c.id = $8 AND c.side = $2 AND c.status = 'pending' AND (SELECT next FROM earlier) IS NULL
		  AND EXISTS (SELECT FROM parties sp WHERE sp.room_id = $1 AND sp.side = $2
		    AND (sp.owner_user_id = $3 OR (sp.owner_user_id IS NULL AND EXISTS (SELECT FROM memberships sm
		      WHERE sm.account_id = sp.account_id AND sm.user_id = $3 AND sm.role = 'owner' FOR SHARE)))
		    FOR SHARE)
		RETURNING 1)
	` + noticeCols + `, EXISTS (SELECT FROM issued)` + noticeFrom

// notificationSQL's columns and the rest, apart for
// notificationOneTapSQL's column between them.
var (
	noticeCols = roomSelect + humanCols + namesCols + `,
	ru.id, ru.email, coalesce(ru.language, ru.page_language, ru.oidc_locale, ''), ru.time_zone, coalesce(rp.email_requests, true), coalesce(rp.email_notices, true),
	coalesce(rp.push_requests, true), coalesce(rp.push_notices, true), ps.endpoint, ps.p256dh, ps.auth,
	(SELECT rc.jws FROM receipts rc WHERE rc.room_id = r.id), (SELECT next FROM earlier)`
	noticeFrom = `
	FROM rooms r` + roomJoins + `
	LEFT JOIN parties p ON p.room_id = r.id AND p.side = $2` + otherParty + `
	LEFT JOIN users ru ON ru.id = $3
	LEFT JOIN notification_prefs rp ON rp.user_id = ru.id
	LEFT JOIN push_subscriptions ps ON ps.user_id = ru.id AND ps.id = $4
	WHERE r.id = $1`
)

// earlierCTE ("earlier", one row: next) is when River next runs the first
// job of a message queued before job $5 to user $3 about room $1 on
// channel $6 (and device $4), not delivered yet, whose job is alive (ready,
// running, or waiting for its next attempt), or NULL when there is none:
// the message the notice is for then waits (jobs' inOrder). An email
// queued or retrying is waited for; a push only retrying (one merely
// queued may be waiting for its burst to end, jobs.PushCoalesce, and goes
// unless a later message made it stale). An invitation's line (the
// opener's log: another person's mail) is not one. Read through the
// partial index of the undelivered lines (migration 00042), in the
// notice's own statement: a message costs no statement more.
const earlierCTE = `earlier AS (SELECT min(j.scheduled_at) AS next FROM notification_deliveries d JOIN river_job j ON j.id = d.job_id
		WHERE d.user_id = $3 AND d.room_id = $1 AND d.job_id < $5 AND d.status IN ('queued', 'retrying')
			AND (d.status = 'retrying' OR d.channel = 'email')
			AND d.channel = $6 AND coalesce(d.subscription_id, 0) = $4 AND d.topic <> 'invite' AND ` + liveJob + `)`

// oneTapIssue is a one-tap token for selectNotice to store with its read
// (notificationOneTapSQL).
type oneTapIssue struct {
	hash           []byte // the token's secretHash: the token itself is never stored
	confirmationID string
	at             time.Time
}

// notice is what notificationSQL reads besides the room.
type notice struct {
	human     *humanRow    // of the side's human, not yet set on the room
	recipient *recipient   // nil: the user no longer exists
	device    *jobs.Device // nil: no device asked for, or not theirs (any more)
	receipt   *string      // nil: none issued
	issued    bool         // the one-tap token was stored (its confirmation is pending)
	zone      *string      // the recipient's time zone (nil: none set, or no such user)
	earlier   *time.Time   // an earlier message this one waits for runs next then (nil: none; earlierCTE)
}

// selectNotice reads everything a notice about a room needs, in one
// statement (notificationSQL): the room, side's human's context and
// names, and the recipient userID's address, preferences and device
// subscriptionID (a push's). With ot, the statement also stores that
// one-tap token for its confirmation if the confirmation is pending
// (notificationOneTapSQL); a notice the caller then skips leaves a token
// nobody holds, which opens nothing.
func selectNotice(ctx context.Context, q querier, roomID int64, side negotiation.Side, userID, subscriptionID, jobID int64, channel jobs.Channel, ot *oneTapIssue) (*roomRow, *notice, error) {
	h := &humanRow{}
	var rcptID *int64
	var email, lang, endpoint, p256dh, auth, jws *string
	var prefs NotifyPrefs
	n := &notice{human: h}
	sql, args := notificationSQL, []any{roomID, side, userID, subscriptionID, jobID, string(channel)}
	dest := []any{&h.seen, &h.zone, &h.lang, &h.agent, &h.them, &rcptID, &email, &lang, &n.zone,
		&prefs.EmailRequests, &prefs.EmailNotices, &prefs.PushRequests, &prefs.PushNotices, &endpoint, &p256dh, &auth, &jws, &n.earlier}
	if ot != nil {
		sql, args = notificationOneTapSQL, append(args, ot.hash, ot.confirmationID, ot.at)
		dest = append(dest, &n.issued)
	}
	row, err := scanRoom(q.QueryRow(ctx, sql, args...), dest...)
	if err != nil {
		return nil, nil, fmt.Errorf("selectNotice %d: %w", roomID, err)
	}
	n.receipt = jws
	if rcptID != nil {
		n.recipient = &recipient{email: *email, lang: *lang, prefs: prefs}
	}
	if endpoint != nil {
		n.device = &jobs.Device{Endpoint: *endpoint, P256dh: *p256dh, Auth: *auth}
	}
	return row, n, nil
}

// personNotice is what a notice to a room's person reads besides the
// room: their party's language, time zone and sealed personal link, and
// the inviting account's name (nil: deleted).
type personNotice struct {
	lang    string
	zone    *string
	link    []byte
	inviter *string
	earlier *time.Time // an earlier message to wait for runs next then
}

// selectPersonNotice reads everything a notice to the room's person needs,
// in one statement, with when the first earlier message to them about the
// room that job jobID waits for runs next (earlierCTE's, from their log).
func selectPersonNotice(ctx context.Context, q querier, roomID, jobID int64) (*roomRow, *personNotice, error) {
	pn := &personNotice{}
	row, err := scanRoom(q.QueryRow(ctx, roomSelect+`, coalesce(ps.lang, ''), ps.zone, ps.link,
		(SELECT a.name FROM accounts a WHERE a.id = pa.account_id),
		(SELECT min(j.scheduled_at) FROM person_deliveries d JOIN river_job j ON j.id = d.job_id
			WHERE d.room_id = r.id AND d.job_id < $2 AND d.status IN ('queued', 'retrying') AND `+liveJob+`)
		FROM rooms r`+roomJoins+` LEFT JOIN person_seats ps ON ps.room_id = r.id WHERE r.id = $1`, roomID, jobID),
		&pn.lang, &pn.zone, &pn.link, &pn.inviter, &pn.earlier)
	if err != nil {
		return nil, nil, fmt.Errorf("selectPersonNotice %d: %w", roomID, err)
	}
	return row, pn, nil
}

// selectRoomAddresses is the addresses of the room's person that
// clearPersonEmail forgets (its invitation's, its person's seat's), read
// without a lock: to lock them first (lockAddresses).
func selectRoomAddresses(ctx context.Context, q querier, roomID int64) ([]string, error) {
	var emails []string
	err := q.QueryRow(ctx, `SELECT coalesce(array_agg(e) FILTER (WHERE e IS NOT NULL), '{}') FROM (
		SELECT invite_email AS e FROM rooms WHERE id = $1
		UNION ALL SELECT person_email FROM parties WHERE room_id = $1 AND side = 'b' AND account_id IS NULL) a`, roomID).Scan(&emails)
	if err != nil {
		return nil, fmt.Errorf("selectRoomAddresses %d: %w", roomID, err)
	}
	return emails, nil
}

// clearPersonEmail forgets where the room's person wanted their news,
// and every other address of theirs the room keeps: the one its
// invitation was emailed to (needed only until they answered; River also
// keeps it in the arguments of the mail's job, shown to operators, until it
// deletes the finished job) and the recipients of the mails sent to them
// (forgetInRoomsSQL). It returns the address their news went to ("" for
// none).
func clearPersonEmail(ctx context.Context, q querier, roomID int64) (string, error) {
	var email string
	err := q.QueryRow(ctx, `WITH old AS (SELECT room_id, side, person_email FROM parties
			WHERE room_id = $1 AND side = 'b' AND account_id IS NULL FOR UPDATE),
		gone AS (SELECT room_id AS id FROM old),
		`+forgetInRoomsSQL+`
		SELECT coalesce(person_email, '') FROM old`, roomID).Scan(&email)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("clearPersonEmail %d: %w", roomID, err)
	}
	return email, nil
}

// forgetInRoomsSQL forgets the person's addresses in the rooms of the CTE
// gone (id), whose person's seat (side b, no account) the CTE old (room_id,
// side) holds locked: the seat's address (nothing more is mailed to it; the
// personal link still opens the room), the invitation's address, the
// recipients in the person's delivery log, and the address in the finished
// jobs of the rooms' invitation mails: CTEs to follow those two (no
// comma after the last). invited (id) and seated (room_id) are the rooms
// whose invitation's or seat's address it forgot, each once even when
// another statement forgets the same room at the same time (a row changed
// meanwhile is skipped).
const forgetInRoomsSQL = `invited AS (UPDATE rooms r SET invite_email = NULL FROM gone
			WHERE r.id = gone.id AND r.invite_email IS NOT NULL RETURNING r.id),
		sent AS (UPDATE person_deliveries d SET recipient = '' FROM gone WHERE d.room_id = gone.id AND d.recipient <> ''),
		mailed AS (UPDATE river_job j SET args = j.args - 'to' FROM gone
			WHERE j.kind = 'notify_invite' AND (j.args->>'room_id')::bigint = gone.id AND j.args ? 'to'
			AND j.state IN ('completed', 'cancelled', 'discarded')),
		seated AS (UPDATE parties p SET person_email = NULL FROM old
			WHERE p.room_id = old.room_id AND p.side = old.side AND p.person_email IS NOT NULL RETURNING p.room_id)`

// selectPrefs reads the user's notification preferences:
// DefaultNotifyPrefs for a user who never set them.
func selectPrefs(ctx context.Context, q querier, userID int64) (NotifyPrefs, error) {
	p := DefaultNotifyPrefs
	err := q.QueryRow(ctx, `SELECT email_requests, email_notices, push_requests, push_notices
		FROM notification_prefs WHERE user_id = $1`, userID).Scan(&p.EmailRequests, &p.EmailNotices, &p.PushRequests, &p.PushNotices)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return p, fmt.Errorf("selectPrefs %d: %w", userID, err)
	}
	return p, nil
}

// upsertPrefs stores the user's notification preferences.
func upsertPrefs(ctx context.Context, q querier, userID int64, p NotifyPrefs, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO notification_prefs (user_id, email_requests, email_notices, push_requests, push_notices, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (user_id) DO UPDATE SET email_requests = $2, email_notices = $3, push_requests = $4, push_notices = $5, updated_at = $6`,
		userID, p.EmailRequests, p.EmailNotices, p.PushRequests, p.PushNotices, at)
	if err != nil {
		return fmt.Errorf("upsertPrefs %d: %w", userID, err)
	}
	return nil
}

// recipientsCol is selectRecipients as a column of a room's statement (one
// JSON array of [id, email, language, the four preferences, [[device id,
// endpoint]…]]), for the users the SQL expression users lists: what a
// move needs to address its notices, read with its room. The subquery's
// own aliases are u, np and s: users may name the outer statement's
// tables but those.
func recipientsCol(users string) string {
	return `,
	coalesce((SELECT json_agg(json_build_array(u.id, u.email, coalesce(u.language, u.page_language, u.oidc_locale, ''),
			coalesce(np.email_requests, true), coalesce(np.email_notices, true),
			coalesce(np.push_requests, true), coalesce(np.push_notices, true),
			coalesce((SELECT json_agg(json_build_array(s.id, s.endpoint) ORDER BY s.id)
				FROM push_subscriptions s WHERE s.user_id = u.id), '[]')))
		FROM users u LEFT JOIN notification_prefs np ON np.user_id = u.id WHERE u.id IN (` + users + `)), '[]')`
}

// setRecipients keeps recipientsCol's value on the room: the recipients
// its move may notify without asking again (enqueueNotices).
func (r *roomRow) setRecipients(col []byte) error {
	var rows [][8]json.RawMessage
	if err := json.Unmarshal(col, &rows); err != nil {
		return fmt.Errorf("room %d recipients: %w", r.ID, err)
	}
	r.recips = make(map[int64]*recipient, len(rows))
	for _, x := range rows {
		var id int64
		rc := &recipient{}
		var subs [][2]json.RawMessage
		for i, dst := range []any{&id, &rc.email, &rc.lang, &rc.prefs.EmailRequests, &rc.prefs.EmailNotices,
			&rc.prefs.PushRequests, &rc.prefs.PushNotices, &subs} {
			if err := json.Unmarshal(x[i], dst); err != nil {
				return fmt.Errorf("room %d recipients: %w", r.ID, err)
			}
		}
		for _, sub := range subs {
			var ref subRef
			var endpoint string
			if err := errors.Join(json.Unmarshal(sub[0], &ref.id), json.Unmarshal(sub[1], &endpoint)); err != nil {
				return fmt.Errorf("room %d recipients: %w", r.ID, err)
			}
			ref.host = endpointHost(endpoint)
			rc.subs = append(rc.subs, ref)
		}
		r.recips[id] = rc
	}
	return nil
}

// selectRecipients reads the humans' addresses, preferences and devices.
func selectRecipients(ctx context.Context, q querier, users []int64) (map[int64]*recipient, error) {
	rows, err := q.Query(ctx, `SELECT u.id, u.email, coalesce(u.language, u.page_language, u.oidc_locale, ''),
			coalesce(p.email_requests, true), coalesce(p.email_notices, true),
			coalesce(p.push_requests, true), coalesce(p.push_notices, true),
			s.id, s.endpoint
		FROM users u
		LEFT JOIN notification_prefs p ON p.user_id = u.id
		LEFT JOIN push_subscriptions s ON s.user_id = u.id
		WHERE u.id = ANY($1)
		ORDER BY u.id, s.id`, users)
	if err != nil {
		return nil, fmt.Errorf("selectRecipients: %w", err)
	}
	defer rows.Close()
	out := map[int64]*recipient{}
	for rows.Next() {
		var id int64
		r := &recipient{}
		var subID *int64
		var endpoint *string
		if err := rows.Scan(&id, &r.email, &r.lang, &r.prefs.EmailRequests, &r.prefs.EmailNotices,
			&r.prefs.PushRequests, &r.prefs.PushNotices, &subID, &endpoint); err != nil {
			return nil, fmt.Errorf("selectRecipients: %w", err)
		}
		if have, ok := out[id]; ok {
			r = have
		} else {
			out[id] = r
		}
		if subID != nil {
			r.subs = append(r.subs, subRef{id: *subID, host: endpointHost(*endpoint)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("selectRecipients: %w", err)
	}
	return out, nil
}

// insertInviteRefusal records an address (its hash) that refused
// invitations.
func insertInviteRefusal(ctx context.Context, q querier, hash []byte, at time.Time) error {
	if _, err := q.Exec(ctx, `INSERT INTO invite_refusals (email_hash, refused_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, hash, at); err != nil {
		return fmt.Errorf("insertInviteRefusal: %w", err)
	}
	return nil
}

// selectInviteRefused reports whether the address (one of its hashes,
// emailHashes) refused invitations.
func selectInviteRefused(ctx context.Context, q querier, hashes [][]byte) (bool, error) {
	var refused bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM invite_refusals WHERE email_hash = ANY($1))`, hashes).Scan(&refused); err != nil {
		return false, fmt.Errorf("selectInviteRefused: %w", err)
	}
	return refused, nil
}

// selectUserLanguage is the user's language: their choice, else the one
// their pages were last shown in (page_language, migration 00033), else
// their provider's locale ("" for none, or no user).
func selectUserLanguage(ctx context.Context, q querier, userID *int64) (string, error) {
	if userID == nil {
		return "", nil
	}
	var lang string
	err := q.QueryRow(ctx, `SELECT coalesce(language, page_language, oidc_locale, '') FROM users WHERE id = $1`, *userID).Scan(&lang)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("selectUserLanguage %d: %w", *userID, err)
	}
	return lang, nil
}

func endpointHost(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Host
	}
	return ""
}

// delivery is one row of the delivery log.
type delivery struct {
	jobs.Notice
	JobID          int64
	Channel        jobs.Channel
	SubscriptionID int64
	Recipient      string
}

// insertQueued logs new jobs as queued at now (nil: the database's clock);
// a job already logged (a duplicate insert River skipped) keeps its row.
func insertQueued(ctx context.Context, q querier, ds []delivery, now *time.Time) error {
	for _, w := range queuedWrites(ds, now) {
		if _, err := q.Exec(ctx, w.sql, w.args...); err != nil {
			return fmt.Errorf("insertQueued: %w", err)
		}
	}
	return nil
}

// queuedWrites is insertQueued folded into the room's UPDATE of a change
// (foldedWrite): a move reads no delivery. A person's deliveries (user 0)
// go to the room's log of them, person_deliveries.
func queuedWrites(ds []delivery, now *time.Time) []foldedWrite {
	var users, persons []delivery
	for _, d := range ds {
		if d.UserID == 0 {
			persons = append(persons, d)
		} else {
			users = append(users, d)
		}
	}
	var out []foldedWrite
	if len(users) > 0 {
		out = append(out, foldedWrite{queuedSQL, queuedArgs(users, now)})
	}
	if len(persons) > 0 {
		rooms, jobIDs, topics, recips := make([]int64, len(persons)), make([]int64, len(persons)), make([]string, len(persons)), make([]string, len(persons))
		for i, d := range persons {
			rooms[i], jobIDs[i], topics[i], recips[i] = d.RoomID, d.JobID, string(d.Topic), d.Recipient
		}
		out = append(out, foldedWrite{personQueuedSQL, []any{rooms, jobIDs, topics, recips, now}})
	}
	return out
}

const personQueuedSQL = `INSERT INTO person_deliveries (room_id, job_id, channel, topic, recipient, status, created_at, updated_at)
	SELECT r, j, 'email', t, rc, 'queued', coalesce($5::timestamptz, statement_timestamp()), coalesce($5::timestamptz, statement_timestamp())
	FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) AS x(r, j, t, rc)
	ON CONFLICT (room_id, job_id) DO NOTHING`

const queuedSQL = `INSERT INTO notification_deliveries
		(user_id, job_id, channel, topic, room_id, confirmation_id, subscription_id, recipient, status, created_at, updated_at)
	SELECT u, j, c, t, r, cf, s, rc, 'queued', coalesce($9::timestamptz, statement_timestamp()), coalesce($9::timestamptz, statement_timestamp())
	FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[], $8::text[])
		AS x(u, j, c, t, r, cf, s, rc)
	ON CONFLICT (user_id, job_id) DO NOTHING`

func queuedArgs(ds []delivery, now *time.Time) []any {
	n := len(ds)
	users, jobIDs, rooms, subs := make([]int64, n), make([]int64, n), make([]*int64, n), make([]*int64, n)
	channels, topics, confs, recips := make([]string, n), make([]string, n), make([]*string, n), make([]string, n)
	for i, d := range ds {
		users[i], jobIDs[i], channels[i], topics[i], recips[i] = d.UserID, d.JobID, string(d.Channel), string(d.Topic), d.Recipient
		if d.RoomID != 0 {
			rooms[i] = &ds[i].RoomID
		}
		if d.ConfirmationID != "" {
			confs[i] = &ds[i].ConfirmationID
		}
		if d.SubscriptionID != 0 {
			subs[i] = &ds[i].SubscriptionID
		}
	}
	return []any{users, jobIDs, channels, topics, rooms, confs, subs, recips, now}
}

// upsertDelivery records an attempt in one statement; the row is made if
// the job was not logged when inserted. A row that says sent is left as it
// is: the message went, whatever a later attempt of its job reports.
func upsertDelivery(ctx context.Context, q querier, d jobs.Delivery, o jobs.Outcome, now *time.Time) error {
	if d.UserID == 0 {
		return upsertPersonDelivery(ctx, q, d, o, now)
	}
	var room, sub *int64
	var conf, detail *string
	if d.RoomID != 0 {
		room = &d.RoomID
	}
	if d.SubscriptionID != 0 {
		sub = &d.SubscriptionID
	}
	if d.ConfirmationID != "" {
		conf = &d.ConfirmationID
	}
	if o.Detail != "" {
		s := clipRunes(o.Detail, 1000)
		detail = &s
	}
	_, err := q.Exec(ctx, `INSERT INTO notification_deliveries
			(user_id, job_id, channel, topic, room_id, confirmation_id, subscription_id, recipient, status, attempts, error, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, coalesce($12::timestamptz, statement_timestamp()), coalesce($12::timestamptz, statement_timestamp()))
		ON CONFLICT (user_id, job_id) DO UPDATE SET
			recipient = CASE WHEN EXCLUDED.recipient = '' THEN notification_deliveries.recipient ELSE EXCLUDED.recipient END,
			status = EXCLUDED.status, attempts = EXCLUDED.attempts, error = EXCLUDED.error, updated_at = EXCLUDED.updated_at
		WHERE notification_deliveries.status <> 'sent'`,
		d.UserID, d.JobID, d.Channel, d.Topic, room, conf, sub, o.Recipient, o.Status, d.Attempt, detail, now)
	if err != nil {
		return fmt.Errorf("upsertDelivery %d: %w", d.JobID, err)
	}
	return nil
}

// upsertPersonDelivery is upsertDelivery of a delivery to a room's
// person (person_deliveries). A seat that holds no address (the person
// unsubscribed, was erased, or the room ended long ago) has none in its
// lines either: the line of a mail queued by a move that committed while
// the person's erasure ran (a move does not wait for erasures) kept it,
// and forgets it here, when its job finds no address.
func upsertPersonDelivery(ctx context.Context, q querier, d jobs.Delivery, o jobs.Outcome, now *time.Time) error {
	var detail *string
	if o.Detail != "" {
		s := clipRunes(o.Detail, 1000)
		detail = &s
	}
	_, err := q.Exec(ctx, `WITH seat AS (SELECT EXISTS (SELECT 1 FROM parties p
			WHERE p.room_id = $1 AND p.side = 'b' AND p.person_email IS NOT NULL) AS addressed)
		INSERT INTO person_deliveries
			(room_id, job_id, channel, topic, recipient, status, attempts, error, created_at, updated_at)
		SELECT $1, $2, $3, $4, CASE WHEN seat.addressed THEN $5 ELSE '' END, $6, $7, $8,
			coalesce($9::timestamptz, statement_timestamp()), coalesce($9::timestamptz, statement_timestamp()) FROM seat
		ON CONFLICT (room_id, job_id) DO UPDATE SET
			recipient = CASE WHEN NOT (SELECT addressed FROM seat) THEN ''
				WHEN EXCLUDED.recipient = '' THEN person_deliveries.recipient ELSE EXCLUDED.recipient END,
			status = EXCLUDED.status, attempts = EXCLUDED.attempts, error = EXCLUDED.error, updated_at = EXCLUDED.updated_at
		WHERE person_deliveries.status <> 'sent'`,
		d.RoomID, d.JobID, d.Channel, d.Topic, o.Recipient, o.Status, d.Attempt, detail, now)
	if err != nil {
		return fmt.Errorf("upsertPersonDelivery %d: %w", d.JobID, err)
	}
	return nil
}

// personDeliveryStatus is the logged status of a job to a room's person
// ("" if none).
func personDeliveryStatus(ctx context.Context, q querier, roomID, jobID int64) (jobs.Status, error) {
	var st jobs.Status
	err := q.QueryRow(ctx, `SELECT status FROM person_deliveries WHERE room_id = $1 AND job_id = $2`, roomID, jobID).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("personDeliveryStatus %d: %w", jobID, err)
	}
	return st, nil
}

// deliveryColumns is a line of the delivery log, as scanDelivery reads it.
const deliveryColumns = `job_id, channel, topic, coalesce(room_id, 0), coalesce(confirmation_id, ''),
			recipient, status, attempts, coalesce(error, ''), created_at, updated_at,
			coalesce((SELECT title FROM rooms WHERE rooms.id = notification_deliveries.room_id), '')`

func scanDelivery(row pgx.CollectableRow) (Delivery, error) {
	var d Delivery
	err := row.Scan(&d.JobID, &d.Channel, &d.Topic, &d.RoomID, &d.ConfirmationID, &d.Recipient, &d.Status,
		&d.Attempts, &d.Error, &d.CreatedAt, &d.UpdatedAt, &d.RoomTitle)
	return d, err
}

// selectDeliveriesBefore reads at most limit lines of the user's delivery
// log created before before, newest first.
func selectDeliveriesBefore(ctx context.Context, q querier, userID int64, before time.Time, limit int) ([]Delivery, error) {
	rows, err := q.Query(ctx, `SELECT `+deliveryColumns+`
		FROM notification_deliveries WHERE user_id = $1 AND created_at < $2
		ORDER BY created_at DESC, job_id DESC LIMIT $3`, userID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("selectDeliveriesBefore %d: %w", userID, err)
	}
	ds, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("selectDeliveriesBefore %d: %w", userID, err)
	}
	return ds, nil
}

// selectDeliveriesAfter reads at most limit lines of the user's delivery
// log that come after the line (at, jobID) in its order, newest first.
func selectDeliveriesAfter(ctx context.Context, q querier, userID int64, at time.Time, jobID int64, limit int) ([]Delivery, error) {
	rows, err := q.Query(ctx, `SELECT `+deliveryColumns+`
		FROM notification_deliveries WHERE user_id = $1 AND (created_at, job_id) < ($2, $3)
		ORDER BY created_at DESC, job_id DESC LIMIT $4`, userID, at, jobID, limit)
	if err != nil {
		return nil, fmt.Errorf("selectDeliveriesAfter %d: %w", userID, err)
	}
	ds, err := pgx.CollectRows(rows, scanDelivery)
	if err != nil {
		return nil, fmt.Errorf("selectDeliveriesAfter %d: %w", userID, err)
	}
	return ds, nil
}

// deliveryStatus is the logged status of a job ("" if none).
func deliveryStatus(ctx context.Context, q querier, userID, jobID int64) (jobs.Status, error) {
	var st jobs.Status
	err := q.QueryRow(ctx, `SELECT status FROM notification_deliveries WHERE user_id = $1 AND job_id = $2`, userID, jobID).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("deliveryStatus %d: %w", jobID, err)
	}
	return st, nil
}

// pushedSinceSQL is pushedSince's since: within before now ($5; NULL: the
// database's clock, which the log's lines are written by).
const pushedSinceSQL = `(coalesce($5::timestamptz, statement_timestamp()) - make_interval(secs => $6))`

// pushedSince reports whether the log says a job other than jobID pushed
// about roomID to the user's device subscriptionID at or after since
// (within before now, pushedSinceSQL). Only
// lines queued within the hour before since are read (the index's range
// of the user's lines): a push that spent longer in retries is missed,
// and the one after it is sent without waiting.
func pushedSince(ctx context.Context, q querier, userID, roomID, subscriptionID, jobID int64, now *time.Time, within time.Duration) (bool, error) {
	var pushed bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT FROM notification_deliveries
		WHERE user_id = $1 AND created_at >= `+pushedSinceSQL+` - interval '1 hour' AND room_id = $2 AND subscription_id = $3
			AND channel = 'push' AND status = 'sent' AND updated_at >= `+pushedSinceSQL+` AND job_id <> $4)`,
		userID, roomID, subscriptionID, jobID, now, within.Seconds()).Scan(&pushed)
	if err != nil {
		return false, fmt.Errorf("pushedSince %d: %w", roomID, err)
	}
	return pushed, nil
}

// liveJob is a River job that still runs: ready, running, or waiting
// for its next attempt (not completed, cancelled, discarded or deleted).
const liveJob = `j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled')`

// releaseLaterDeliveries makes the jobs of the lines queued after jobID
// about roomID to the user (or the room's person, user 0), on channel
// and device, that wait (snoozed: ready later, or scheduled) and are not
// delivered yet, ready now: the message they waited for is done with.
func releaseLaterDeliveries(ctx context.Context, q querier, userID, roomID, jobID int64, channel jobs.Channel, subscriptionID int64) error {
	var err error
	if userID == 0 {
		_, err = q.Exec(ctx, `UPDATE river_job j SET state = 'available', scheduled_at = now() FROM person_deliveries d
			WHERE d.room_id = $1 AND d.job_id > $2 AND d.status IN ('queued', 'retrying')
				AND j.id = d.job_id AND j.state IN ('available', 'scheduled') AND j.scheduled_at > now()`, roomID, jobID)
	} else {
		_, err = q.Exec(ctx, `UPDATE river_job j SET state = 'available', scheduled_at = now() FROM notification_deliveries d
			WHERE d.user_id = $1 AND d.room_id = $2 AND d.job_id > $3 AND d.status IN ('queued', 'retrying')
				AND d.channel = $4 AND coalesce(d.subscription_id, 0) = $5 AND d.topic <> 'invite'
				AND j.id = d.job_id AND j.state IN ('available', 'scheduled') AND j.scheduled_at > now()`,
			userID, roomID, jobID, channel, subscriptionID)
	}
	if err != nil {
		return fmt.Errorf("releaseLaterDeliveries %d: %w", jobID, err)
	}
	return nil
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// lockAccountForInvites takes the account's row lock that serializes the
// count of its invitation emails until the transaction ends. FOR NO KEY
// UPDATE: the inserts that only reference the account (other opens'
// rooms) are not held up.
func lockAccountForInvites(ctx context.Context, q querier, accountID int64) error {
	_, err := q.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, accountID)
	if err != nil {
		return fmt.Errorf("lockAccountForInvites %d: %w", accountID, err)
	}
	return nil
}

// nthLatestInviteEmail forgets the account's invitation emails from before
// since, and returns when its n-th latest one since then was asked for
// (zero when it had fewer than n).
func nthLatestInviteEmail(ctx context.Context, q querier, accountID int64, since time.Time, n int) (time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `WITH forgotten AS (DELETE FROM invite_emails WHERE account_id = $1 AND created_at <= $2)
		SELECT created_at FROM invite_emails WHERE account_id = $1 AND created_at > $2
		ORDER BY created_at DESC OFFSET $3 LIMIT 1`, accountID, since, n-1).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("nthLatestInviteEmail %d: %w", accountID, err)
	}
	return at, nil
}

// insertInviteEmail counts an invitation email against the account.
func insertInviteEmail(ctx context.Context, q querier, accountID, roomID int64, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO invite_emails (account_id, created_at, room_id) VALUES ($1, $2, $3)`, accountID, at, roomID)
	if err != nil {
		return fmt.Errorf("insertInviteEmail %d: %w", accountID, err)
	}
	return nil
}

// markUndelivered notes in the room's row (rooms.undelivered, by side)
// that the mail server refused for good side a's invitation (while nobody
// has joined), or a request to confirm side's confirmation id (while it is
// pending): the seats' statements read it with the room. A refusal that
// comes after the invitation was answered, or after the confirmation was
// settled or replaced, notes nothing (noted false). It returns the room's
// seq and the side's account (0: none), for the webhooks, and the moment
// noted: at, or (nil) the database's clock.
func markUndelivered(ctx context.Context, q querier, roomID int64, side negotiation.Side, confirmationID string, at *time.Time) (noted bool, seq int, accountID int64, notedAt time.Time, err error) {
	const set = `UPDATE rooms r SET undelivered = jsonb_set(coalesce(r.undelivered, '{}'), ARRAY[$2::text],
			coalesce(r.undelivered->$2::text, '{}') || `
	returning := func(moment string) string {
		return ` RETURNING r.seq, coalesce((SELECT p.account_id FROM parties p WHERE p.room_id = r.id AND p.side = $2::text), 0), ` + moment
	}
	var row pgx.Row
	if confirmationID == "" {
		const moment = `coalesce($3::timestamptz, statement_timestamp())`
		row = q.QueryRow(ctx, set+`jsonb_build_object('invite', `+moment+`))
			WHERE r.id = $1 AND r.state = 'draft'`+returning(moment), roomID, side, at)
	} else {
		const moment = `coalesce($4::timestamptz, statement_timestamp())`
		row = q.QueryRow(ctx, set+`jsonb_build_object('request', jsonb_build_object('id', $3::text, 'at', `+moment+`)))
			FROM confirmations c WHERE r.id = $1 AND c.room_id = r.id AND c.side = $2::text AND c.id = $3 AND c.status = 'pending'`+returning(moment),
			roomID, side, confirmationID, at)
	}
	switch err = row.Scan(&seq, &accountID, &notedAt); {
	case errors.Is(err, pgx.ErrNoRows):
		return false, 0, 0, time.Time{}, nil
	case err != nil:
		return false, 0, 0, time.Time{}, fmt.Errorf("markUndelivered %d: %w", roomID, err)
	}
	return true, seq, accountID, notedAt, nil
}

// markRequestDelayed notes in the room's row that the email asking side's
// human to confirm confirmationID (its request or a reminder) failed an
// attempt that River will retry (the mail server did not answer, or
// answered "not now"), while that confirmation is pending and nothing is
// noted of it yet: a refusal for good (markUndelivered's "request") is not
// made a delay, and a delay already noted is not written again at each
// attempt. It is kept apart from "request" ("request_delayed"), so a build
// that knows only refusals reads it as nothing, not as a refusal. noted
// says whether it wrote.
func markRequestDelayed(ctx context.Context, q querier, roomID int64, side negotiation.Side, confirmationID string, at *time.Time) (noted bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE rooms r SET undelivered = jsonb_set(coalesce(r.undelivered, '{}'), ARRAY[$2::text],
			coalesce(r.undelivered->$2::text, '{}') || jsonb_build_object('request_delayed',
				jsonb_build_object('id', $3::text, 'at', coalesce($4::timestamptz, statement_timestamp()))))
		FROM confirmations c WHERE r.id = $1 AND c.room_id = r.id AND c.side = $2::text AND c.id = $3 AND c.status = 'pending'
			AND (r.undelivered->$2::text->'request'->>'id') IS DISTINCT FROM $3
			AND (r.undelivered->$2::text->'request_delayed'->>'id') IS DISTINCT FROM $3`, roomID, side, confirmationID, at)
	if err != nil {
		return false, fmt.Errorf("markRequestDelayed %d: %w", roomID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// markInviteDelayed notes in the room's row that the invitation email
// side a's opener asked for (invite_email) failed an attempt that River
// will retry, while the room waits for its join and nothing is noted of
// the invitation yet: a refusal for good (markUndelivered's "invite") is
// not made a delay, and a delay already noted is not written again at
// each attempt. It is kept apart from "invite" ("invite_delayed"), so a
// build that knows only refusals reads it as nothing. noted says whether
// it wrote.
func markInviteDelayed(ctx context.Context, q querier, roomID int64, at *time.Time) (noted bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE rooms SET undelivered = jsonb_set(coalesce(undelivered, '{}'), ARRAY['a'],
			coalesce(undelivered->'a', '{}') || jsonb_build_object('invite_delayed', coalesce($2::timestamptz, statement_timestamp())))
		WHERE id = $1 AND state = 'draft'
			AND NOT coalesce(undelivered->'a' ?| ARRAY['invite', 'invite_delayed'], false)`, roomID, at)
	if err != nil {
		return false, fmt.Errorf("markInviteDelayed %d: %w", roomID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// clearInviteDelayed forgets the delay markInviteDelayed noted once the
// invitation email went. cleared says whether there was one.
func clearInviteDelayed(ctx context.Context, q querier, roomID int64) (cleared bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE rooms SET undelivered = undelivered #- ARRAY['a', 'invite_delayed']
		WHERE id = $1 AND undelivered->'a' ? 'invite_delayed'`, roomID)
	if err != nil {
		return false, fmt.Errorf("clearInviteDelayed %d: %w", roomID, err)
	}
	return tag.RowsAffected() > 0, nil
}

// clearRequestDelayed forgets the delay markRequestDelayed noted of
// confirmationID once an email asking for it went (a refusal for good
// stays). cleared says whether there was one.
func clearRequestDelayed(ctx context.Context, q querier, roomID int64, side negotiation.Side, confirmationID string) (cleared bool, err error) {
	tag, err := q.Exec(ctx, `UPDATE rooms SET undelivered = undelivered #- ARRAY[$2::text, 'request_delayed']
		WHERE id = $1 AND undelivered->$2::text->'request_delayed'->>'id' = $3`,
		roomID, side, confirmationID)
	if err != nil {
		return false, fmt.Errorf("clearRequestDelayed %d: %w", roomID, err)
	}
	return tag.RowsAffected() > 0, nil
}
