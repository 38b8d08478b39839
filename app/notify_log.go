package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// Delivery is one line of a user's delivery log: one notification on one
// channel, and how it went.
type Delivery struct {
	JobID          int64
	Channel        jobs.Channel // email, push
	Topic          jobs.Topic   // request, reminder, agreed, closed, no_deal, test, invite
	RoomID         int64        // 0 for a test push
	RoomTitle      string       // the room's title (the inviter's words), "" for none
	ConfirmationID string
	Recipient      string      // the address (an invitation's: the invitee's), or the push service's host
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
	ds, err := selectDeliveriesBefore(ctx, n.pool, userID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("delivery log: %w", err)
	}
	return ds, nil
}

// DeliveryLogPage returns a page of the user's delivery log, newest first:
// at most limit lines (1 to MaxDeliveryLog), after cursor ("" for the
// newest), and the cursor of the next page ("" when this is the last). The
// cursor is the last line's (created_at, job_id), so lines created at the
// same moment are neither skipped nor repeated.
func (n *Notifications) DeliveryLogPage(ctx context.Context, userID int64, limit int, cursor string) ([]Delivery, string, error) {
	if limit <= 0 || limit > MaxDeliveryLog {
		limit = MaxDeliveryLog
	}
	at, job := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), int64(0)
	if cursor != "" {
		ns, id, ok := strings.Cut(cursor, ".")
		nanos, err1 := strconv.ParseInt(ns, 10, 64)
		j, err2 := strconv.ParseInt(id, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, "", refuse(ErrInvalid, "error.cursor_deliveries", "cursor: not a page of the delivery log")
		}
		at, job = time.Unix(0, nanos).UTC(), j
	}
	page, err := selectDeliveriesAfter(ctx, n.pool, userID, at, job, limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("delivery log: %w", err)
	}
	next := ""
	if len(page) > limit {
		page = page[:limit]
		last := page[limit-1]
		next = strconv.FormatInt(last.CreatedAt.UnixNano(), 10) + "." + strconv.FormatInt(last.JobID, 10)
	}
	return page, next, nil
}

// Sent reports whether the delivery log says d's job was sent
// (jobs.Deliveries, jobs.Invitations): an earlier attempt the server
// accepted, whose completion River did not record before the process died.
func (n *Notifications) Sent(ctx context.Context, d jobs.Delivery) (bool, error) {
	var st jobs.Status
	var err error
	if d.UserID == 0 { // the room's person (person_deliveries)
		st, err = personDeliveryStatus(ctx, n.pool, d.RoomID, d.JobID)
	} else {
		st, err = deliveryStatus(ctx, n.pool, d.UserID, d.JobID)
	}
	if err != nil {
		return false, fmt.Errorf("delivery status: %w", err)
	}
	return st == jobs.StatusSent, nil
}

// PushedLately reports whether another push about d's room went to d's
// device less than within ago (jobs.PushDeliveries): one indexed read of
// the user's recent log lines, by the push job, never by the move.
func (n *Notifications) PushedLately(ctx context.Context, d jobs.Delivery, within time.Duration) (bool, error) {
	if d.UserID == 0 || d.RoomID == 0 || d.SubscriptionID == 0 {
		return false, nil
	}
	return pushedSince(ctx, n.pool, d.UserID, d.RoomID, d.SubscriptionID, d.JobID, n.dbMoment(), within)
}

// Record writes an attempt's outcome (jobs.Deliveries). The line is one
// statement of its own, committed before anything else: once a message
// was accepted, the sooner the log says so, the smaller the window in
// which a crash makes a rescued job send it again (a later attempt reads
// the line first: Sent). A line that says sent stays so. Then a gone push
// subscription is forgotten, and a device pushed to is marked; both are
// safe to repeat or to miss.
//
// It is written again while the database does not answer (recordAgain),
// within ctx: each of its statements is safe to repeat (the line is an
// upsert, the room's note and the release are written once).
func (n *Notifications) Record(ctx context.Context, d jobs.Delivery, o jobs.Outcome) error {
	return recordAgain(ctx, func() error { return n.record(ctx, d, o) })
}

func (n *Notifications) record(ctx context.Context, d jobs.Delivery, o jobs.Outcome) error {
	// The log's lines and the notes in the room are written at the
	// database's moment (nil), as the lines a move queues and the room's
	// log: a worker whose clock is off does not write a delivery before
	// its queueing, nor a refusal before the request.
	now := n.dbMoment()
	if err := upsertDelivery(ctx, n.pool, d, o, now); err != nil {
		return err
	}
	if err := n.noteUndelivered(ctx, d, o, now); err != nil {
		return err
	}
	switch {
	case o.Status == jobs.StatusGone && d.SubscriptionID != 0:
		if err := deletePushSubscription(ctx, n.pool, d.UserID, d.SubscriptionID); err != nil {
			return fmt.Errorf("forget a gone push subscription: %w", err)
		}
	case o.Status == jobs.StatusSent && d.SubscriptionID != 0:
		if err := markPushSent(ctx, n.pool, d.UserID, d.SubscriptionID, now); err != nil {
			return fmt.Errorf("mark a push subscription used: %w", err)
		}
	}
	if o.Status != jobs.StatusRetrying && d.Attempt > 1 && d.RoomID != 0 && d.Topic != jobs.TopicInvite {
		// Done with after a failed attempt (what later messages wait for:
		// jobs' inOrder): those after it about the room go now rather than
		// at the end of their wait.
		if err := releaseLaterDeliveries(ctx, n.pool, d.UserID, d.RoomID, d.JobID, d.Channel, d.SubscriptionID); err != nil {
			return fmt.Errorf("release the messages after it: %w", err)
		}
	}
	return nil
}

// noteUndelivered tells the seat of an email the mail server refused for
// good (a 5xx, or every attempt used up) when it was an invitation its
// opener asked Taasky to send, or a request (or its reminder) to the
// seat's human to confirm: the room view then says so (View.Undelivered)
// to the seat's agent and human, and nobody else, and the seat's account's
// endpoints that asked for mail.undelivered are sent it, in the same
// transaction. The room is announced, so that live pages and waiting
// reads see it.
func (n *Notifications) noteUndelivered(ctx context.Context, d jobs.Delivery, o jobs.Outcome, now *time.Time) error {
	if d.Channel != jobs.ChannelEmail || d.RoomID == 0 || d.UserID == 0 {
		return nil
	}
	if o.Status == jobs.StatusRetrying || o.Status == jobs.StatusSent {
		return n.noteDelayed(ctx, d, o, now)
	}
	if o.Status != jobs.StatusFailed {
		return nil
	}
	conf := ""
	switch d.Topic {
	case jobs.TopicInvite:
	case jobs.TopicRequest, jobs.TopicReminder:
		if conf = d.ConfirmationID; conf == "" {
			return nil
		}
	default:
		return nil
	}
	noted := false
	err := pgx.BeginTxFunc(ctx, n.pool, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var seq int
		var account int64
		var err error
		var at time.Time
		if noted, seq, account, at, err = markUndelivered(ctx, tx, d.RoomID, d.Side, conf, now); err != nil || !noted || account == 0 {
			return err
		}
		targets, err := selectHookTargets(ctx, tx, []int64{account})
		if err != nil {
			return err
		}
		msgs, params := n.rooms.hookMessages(targets, []sideEvent{{d.Side, HookMailUndelivered}},
			func(negotiation.Side) int64 { return account }, d.RoomID, seq, at)
		if len(msgs) == 0 {
			return nil
		}
		if err := insertHookMessages(ctx, tx, msgs); err != nil {
			return err
		}
		if _, err := n.river.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("insert webhook jobs: %w", err)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("note undelivered: %w", err)
	}
	if noted {
		n.rooms.announcer.add([]int64{d.RoomID})
	}
	return nil
}

// noteDelayed tells the seat that an email it counts on has not gone out
// yet: an attempt failed and River will try again (the mail server away,
// or answering "not now"). That is the email asking its human to confirm
// (the request, or a reminder of it), or the invitation its opener asked
// Taasky to send (invite_email; the opener's side only, while nobody has
// joined). Until then the seat's view says so (UndeliveredView.Retrying)
// instead of "they were notified" or a plain wait for the join, to its
// agent and human, and the room is announced; the first email about that
// confirmation, or the invitation, the server accepts takes it back. A
// refusal for good is never made a delay. A delay sends no webhook
// (mail.undelivered is a refusal for good). Only the email's worker pays
// for it: a delay is written once per confirmation or invitation, and a
// sent email looks for one only after a failed attempt of its own
// (Attempt > 1) or when it is a reminder (which may follow a request that
// is still being retried).
func (n *Notifications) noteDelayed(ctx context.Context, d jobs.Delivery, o jobs.Outcome, now *time.Time) error {
	var changed bool
	var err error
	switch {
	case d.Topic == jobs.TopicInvite && d.Side == negotiation.SideA:
		switch {
		case o.Status == jobs.StatusRetrying:
			changed, err = markInviteDelayed(ctx, n.pool, d.RoomID, now)
		case d.Attempt > 1:
			changed, err = clearInviteDelayed(ctx, n.pool, d.RoomID)
		}
	case (d.Topic != jobs.TopicRequest && d.Topic != jobs.TopicReminder) || d.ConfirmationID == "":
		return nil
	case o.Status == jobs.StatusRetrying:
		changed, err = markRequestDelayed(ctx, n.pool, d.RoomID, d.Side, d.ConfirmationID, now)
	case d.Attempt > 1 || d.Topic == jobs.TopicReminder:
		changed, err = clearRequestDelayed(ctx, n.pool, d.RoomID, d.Side, d.ConfirmationID)
	}
	if err != nil {
		return fmt.Errorf("note a delayed email: %w", err)
	}
	if changed {
		n.rooms.announcer.add([]int64{d.RoomID})
	}
	return nil
}
