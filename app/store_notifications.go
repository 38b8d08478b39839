package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/taasky/taasky/jobs"
)

// The notifications' SQL: notification_prefs, push_subscriptions,
// notification_deliveries, dev_outbox, invite_emails.

// recipient is what the fan-out needs of a human: where to write and what
// they allow.
type recipient struct {
	email string
	prefs NotifyPrefs
	subs  []subRef
}

type subRef struct {
	id   int64
	host string
}

// notificationSQL is everything a notice about a room needs, as of one
// moment: the room ($1) with the context and the names of side $2's human,
// and the recipient's ($3) address, preferences, and device $4 (a push's).
var notificationSQL = roomSelect + humanCols + namesCols + `,
	ru.id, ru.email, coalesce(rp.email_requests, true), coalesce(rp.email_notices, true),
	coalesce(rp.push_requests, true), coalesce(rp.push_notices, true), ps.endpoint, ps.p256dh, ps.auth
	FROM rooms r` + roomJoins + `
	LEFT JOIN parties p ON p.room_id = r.id AND p.side = $2` + otherParty + `
	LEFT JOIN users ru ON ru.id = $3
	LEFT JOIN notification_prefs rp ON rp.user_id = ru.id
	LEFT JOIN push_subscriptions ps ON ps.user_id = ru.id AND ps.id = $4
	WHERE r.id = $1`

// selectRecipients reads the humans' addresses, preferences and devices.
func selectRecipients(ctx context.Context, q querier, users []int64) (map[int64]*recipient, error) {
	rows, err := q.Query(ctx, `SELECT u.id, u.email,
			coalesce(p.email_requests, true), coalesce(p.email_notices, true),
			coalesce(p.push_requests, true), coalesce(p.push_notices, true),
			s.id, s.endpoint
		FROM users u
		LEFT JOIN notification_prefs p ON p.user_id = u.id
		LEFT JOIN push_subscriptions s ON s.user_id = u.id
		WHERE u.id = ANY($1)
		ORDER BY u.id, s.id`, users)
	if err != nil {
		return nil, fmt.Errorf("select recipients: %w", err)
	}
	defer rows.Close()
	out := map[int64]*recipient{}
	for rows.Next() {
		var id int64
		r := &recipient{}
		var subID *int64
		var endpoint *string
		if err := rows.Scan(&id, &r.email, &r.prefs.EmailRequests, &r.prefs.EmailNotices,
			&r.prefs.PushRequests, &r.prefs.PushNotices, &subID, &endpoint); err != nil {
			return nil, err
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
	return out, rows.Err()
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

// insertQueued logs new jobs as queued; a job already logged (a duplicate
// insert River skipped) keeps its row.
func insertQueued(ctx context.Context, q querier, ds []delivery, now time.Time) error {
	if len(ds) == 0 {
		return nil
	}
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
	_, err := q.Exec(ctx, `INSERT INTO notification_deliveries
			(user_id, job_id, channel, topic, room_id, confirmation_id, subscription_id, recipient, status, created_at, updated_at)
		SELECT u, j, c, t, r, cf, s, rc, 'queued', $9, $9
		FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::bigint[], $8::text[])
			AS x(u, j, c, t, r, cf, s, rc)
		ON CONFLICT (user_id, job_id) DO NOTHING`, users, jobIDs, channels, topics, rooms, confs, subs, recips, now)
	if err != nil {
		return fmt.Errorf("log queued deliveries: %w", err)
	}
	return nil
}

// upsertDelivery records an attempt in one statement; the row is made if
// the job was not logged when inserted. A row that says sent is left as it
// is: the message went, whatever a later attempt of its job reports.
func upsertDelivery(ctx context.Context, q querier, d jobs.Delivery, o jobs.Outcome, now time.Time) error {
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
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
		ON CONFLICT (user_id, job_id) DO UPDATE SET
			recipient = CASE WHEN EXCLUDED.recipient = '' THEN notification_deliveries.recipient ELSE EXCLUDED.recipient END,
			status = EXCLUDED.status, attempts = EXCLUDED.attempts, error = EXCLUDED.error, updated_at = EXCLUDED.updated_at
		WHERE notification_deliveries.status <> 'sent'`,
		d.UserID, d.JobID, d.Channel, d.Topic, room, conf, sub, o.Recipient, o.Status, d.Attempt, detail, now)
	if err != nil {
		return fmt.Errorf("log delivery: %w", err)
	}
	return nil
}

// deliveryStatus is the logged status of a job ("" if none).
func deliveryStatus(ctx context.Context, q querier, userID, jobID int64) (jobs.Status, error) {
	var st jobs.Status
	err := q.QueryRow(ctx, `SELECT status FROM notification_deliveries WHERE user_id = $1 AND job_id = $2`, userID, jobID).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return st, err
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// isForeignKeyViolation reports whether err is a foreign key violation
// (a user that does not exist).
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// lockAccountForInvites takes the account's row lock that serializes the
// count of its invitation emails until the transaction ends. FOR NO KEY
// UPDATE: the inserts that only reference the account (other opens'
// rooms) are not held up.
func lockAccountForInvites(ctx context.Context, q querier, accountID int64) error {
	_, err := q.Exec(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, accountID)
	if err != nil {
		return fmt.Errorf("lock the account for its invitation emails: %w", err)
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
		return time.Time{}, fmt.Errorf("count invitation emails: %w", err)
	}
	return at, nil
}

// insertInviteEmail counts an invitation email against the account.
func insertInviteEmail(ctx context.Context, q querier, accountID, roomID int64, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO invite_emails (account_id, created_at, room_id) VALUES ($1, $2, $3)`, accountID, at, roomID)
	if err != nil {
		return fmt.Errorf("count an invitation email: %w", err)
	}
	return nil
}
