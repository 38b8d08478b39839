package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
)

// The SQL of push subscriptions (a user's devices) and of the dev outbox.

// selectPushDevice reads the user's device subscriptionID (nil, no error:
// the user has no such device).
func selectPushDevice(ctx context.Context, q querier, userID, subscriptionID int64) (*jobs.Device, error) {
	d := &jobs.Device{}
	err := q.QueryRow(ctx, `SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = $1 AND id = $2`,
		userID, subscriptionID).Scan(&d.Endpoint, &d.P256dh, &d.Auth)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("selectPushDevice %d: %w", subscriptionID, err)
	}
	return d, nil
}

// lockCountOtherPushSubscriptions locks the user's row (FOR NO KEY UPDATE)
// and then counts the user's subscriptions other than endpoint's;
// pgx.ErrNoRows: no such user. Two statements, not one: a count in the
// locking statement is read from the snapshot taken before the lock was
// waited for, so it misses the device the lock's previous holder just
// added, and two browsers at once would both take the last place.
func lockCountOtherPushSubscriptions(ctx context.Context, q querier, userID int64, endpoint string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&n)
	if err == nil {
		err = q.QueryRow(ctx, `SELECT count(*) FROM push_subscriptions WHERE user_id = $1 AND endpoint <> $2`, userID, endpoint).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("lockCountOtherPushSubscriptions %d: %w", userID, err)
	}
	return n, nil
}

// upsertPushSubscription stores a browser's subscription for the user, in
// two statements (run it in a transaction): the endpoint is taken from
// any other user that had it, and the same endpoint again replaces its
// keys and name.
func upsertPushSubscription(ctx context.Context, q querier, userID int64, in PushSubscriptionInput, at time.Time) (PushSubscription, error) {
	var s PushSubscription
	if _, err := q.Exec(ctx, `DELETE FROM push_subscriptions WHERE endpoint = $1 AND user_id <> $2`, in.Endpoint, userID); err != nil {
		return s, fmt.Errorf("upsertPushSubscription %d: %w", userID, err)
	}
	err := q.QueryRow(ctx, `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, device, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (user_id, endpoint) DO UPDATE SET p256dh = $3, auth = $4, device = $5
			RETURNING id, endpoint, device, created_at, last_sent_at`,
		userID, in.Endpoint, in.P256dh, in.Auth, in.Device, at).Scan(&s.ID, &s.Endpoint, &s.Device, &s.CreatedAt, &s.LastSentAt)
	if err != nil {
		return s, fmt.Errorf("upsertPushSubscription %d: %w", userID, err)
	}
	return s, nil
}

// deleteUserPushSubscription forgets one of the user's subscriptions: by
// id, or by endpoint when id is 0.
func deleteUserPushSubscription(ctx context.Context, q querier, userID, id int64, endpoint string) error {
	_, err := q.Exec(ctx, `DELETE FROM push_subscriptions WHERE user_id = $1 AND (id = $2 OR ($2 = 0 AND endpoint = $3))`,
		userID, id, endpoint)
	if err != nil {
		return fmt.Errorf("deleteUserPushSubscription %d: %w", userID, err)
	}
	return nil
}

// deletePushSubscription forgets the user's subscription id (the push
// service said it is gone).
func deletePushSubscription(ctx context.Context, q querier, userID, id int64) error {
	if _, err := q.Exec(ctx, `DELETE FROM push_subscriptions WHERE user_id = $1 AND id = $2`, userID, id); err != nil {
		return fmt.Errorf("deletePushSubscription %d: %w", id, err)
	}
	return nil
}

// markPushSent records when the user's subscription id was last pushed to.
func markPushSent(ctx context.Context, q querier, userID, id int64, at *time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE push_subscriptions SET last_sent_at = coalesce($3::timestamptz, statement_timestamp()) WHERE user_id = $1 AND id = $2`,
		userID, id, at); err != nil {
		return fmt.Errorf("markPushSent %d: %w", id, err)
	}
	return nil
}

// selectPushSubscriptions lists the user's devices, newest first.
func selectPushSubscriptions(ctx context.Context, q querier, userID int64) ([]PushSubscription, error) {
	rows, err := q.Query(ctx, `SELECT id, endpoint, device, created_at, last_sent_at
		FROM push_subscriptions WHERE user_id = $1 ORDER BY id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("selectPushSubscriptions %d: %w", userID, err)
	}
	subs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (PushSubscription, error) {
		var s PushSubscription
		err := row.Scan(&s.ID, &s.Endpoint, &s.Device, &s.CreatedAt, &s.LastSentAt)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectPushSubscriptions %d: %w", userID, err)
	}
	return subs, nil
}

func insertOutbox(ctx context.Context, q querier, to, subject string, raw []byte, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO dev_outbox (to_addr, subject, raw, created_at) VALUES ($1, $2, $3, $4)`,
		to, subject, raw, at)
	if err != nil {
		return fmt.Errorf("insertOutbox: %w", err)
	}
	return nil
}

// selectOutbox lists the latest kept messages, newest first, without Raw.
func selectOutbox(ctx context.Context, q querier, limit int) ([]OutboxMail, error) {
	rows, err := q.Query(ctx, `SELECT id, to_addr, subject, created_at FROM dev_outbox ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("selectOutbox: %w", err)
	}
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (OutboxMail, error) {
		var m OutboxMail
		err := row.Scan(&m.ID, &m.To, &m.Subject, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectOutbox: %w", err)
	}
	return ms, nil
}

// selectOutboxMessage reads one kept message, with Raw.
func selectOutboxMessage(ctx context.Context, q querier, id int64) (OutboxMail, error) {
	m := OutboxMail{ID: id}
	err := q.QueryRow(ctx, `SELECT to_addr, subject, raw, created_at FROM dev_outbox WHERE id = $1`, id).
		Scan(&m.To, &m.Subject, &m.Raw, &m.CreatedAt)
	if err != nil {
		return m, fmt.Errorf("selectOutboxMessage %d: %w", id, err)
	}
	return m, nil
}

// lastTestPush locks the user's row (a test asked at the same moment waits
// for this one's transaction) and says when their latest test push within
// every before now (nil: the database's clock, which the pushes are logged
// by, on every node) was queued; zero when none was.
func lastTestPush(ctx context.Context, q querier, userID int64, now *time.Time, every time.Duration) (time.Time, error) {
	if _, err := q.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
		return time.Time{}, fmt.Errorf("lastTestPush %d: %w", userID, err)
	}
	var at *time.Time
	if err := q.QueryRow(ctx, `SELECT max(created_at) FROM notification_deliveries
		WHERE user_id = $1 AND created_at > coalesce($2::timestamptz, statement_timestamp()) - make_interval(secs => $4) AND topic = $3`,
		userID, now, string(jobs.TopicTest), every.Seconds()).Scan(&at); err != nil {
		return time.Time{}, fmt.Errorf("lastTestPush %d: %w", userID, err)
	}
	if at == nil {
		return time.Time{}, nil
	}
	return *at, nil
}
