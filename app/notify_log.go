package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
)

// Delivery is one line of a user's delivery log: one notification on one
// channel, and how it went.
type Delivery struct {
	JobID          int64
	Channel        jobs.Channel // email, push
	Topic          jobs.Topic   // request, reminder, agreed, closed, no_deal, test
	RoomID         int64        // 0 for a test push
	ConfirmationID string
	Recipient      string      // the address, or the push service's host
	Status         jobs.Status // queued, sent, retrying, failed, skipped, gone
	Attempts       int
	Error          string // the last error, or why it was skipped
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// MaxDeliveryLog bounds one page of the delivery log.
const MaxDeliveryLog = 200

// DeliveryLog returns the user's latest deliveries, newest first: at most
// limit (1 to MaxDeliveryLog), created before `before` when it is not zero
// (the last line's CreatedAt, for the next page).
func (n *Notifications) DeliveryLog(ctx context.Context, userID int64, limit int, before time.Time) ([]Delivery, error) {
	if limit <= 0 || limit > MaxDeliveryLog {
		limit = MaxDeliveryLog
	}
	if before.IsZero() {
		before = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	rows, err := n.pool.Query(ctx, `SELECT job_id, channel, topic, coalesce(room_id, 0), coalesce(confirmation_id, ''),
			recipient, status, attempts, coalesce(error, ''), created_at, updated_at
		FROM notification_deliveries WHERE user_id = $1 AND created_at < $2
		ORDER BY created_at DESC, job_id DESC LIMIT $3`, userID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("delivery log: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (Delivery, error) {
		var d Delivery
		err := row.Scan(&d.JobID, &d.Channel, &d.Topic, &d.RoomID, &d.ConfirmationID, &d.Recipient, &d.Status,
			&d.Attempts, &d.Error, &d.CreatedAt, &d.UpdatedAt)
		return d, err
	})
}

// Record writes an attempt's outcome (jobs.Deliveries). A gone push
// subscription is forgotten.
func (n *Notifications) Record(ctx context.Context, d jobs.Delivery, o jobs.Outcome) error {
	return pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		if err := upsertDelivery(ctx, tx, d, o, n.now()); err != nil {
			return err
		}
		switch {
		case o.Status == jobs.StatusGone && d.SubscriptionID != 0:
			_, err := tx.Exec(ctx, `DELETE FROM push_subscriptions WHERE user_id = $1 AND id = $2`, d.UserID, d.SubscriptionID)
			return err
		case o.Status == jobs.StatusSent && d.SubscriptionID != 0:
			_, err := tx.Exec(ctx, `UPDATE push_subscriptions SET last_sent_at = $3 WHERE user_id = $1 AND id = $2`,
				d.UserID, d.SubscriptionID, n.now())
			return err
		}
		return nil
	})
}
