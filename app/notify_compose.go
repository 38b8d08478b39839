package app

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// Notification says what a notice holds now (jobs.Deliveries): the
// recipient's own card, in their labels and time zone, and for a request
// or a reminder a one-tap token issued for this message. It re-checks
// everything the fan-out decided, so a job that runs late or twice sends
// nothing that is no longer true. (A job that was sent already is not
// asked: the worker reads the log first, Sent.)
func (n *Notifications) Notification(ctx context.Context, d jobs.Delivery) (*jobs.Notification, error) {
	out := &jobs.Notification{Now: n.now(), SettingsURL: n.baseURL + "/settings", TimeZone: time.UTC}
	// One snapshot: the room, its confirmation and the human as of one moment.
	err := pgx.BeginTxFunc(ctx, n.pool, readOnly, func(tx pgx.Tx) error {
		recips, err := selectRecipients(ctx, tx, []int64{d.UserID})
		if err != nil {
			return err
		}
		r, ok := recips[d.UserID]
		if !ok {
			return jobs.Skip("the user no longer exists")
		}
		if !r.prefs.allows(d.Channel, d.Topic) {
			return jobs.Skip(string(d.Channel) + " " + topicGroup(d.Topic) + " are turned off")
		}
		switch d.Channel {
		case jobs.ChannelEmail:
			out.To = r.email
		case jobs.ChannelPush:
			t, err := selectPushTarget(ctx, tx, d.UserID, d.SubscriptionID)
			if err != nil {
				return err
			}
			out.Push = t
		}
		if d.Topic == jobs.TopicTest {
			return nil
		}
		return n.roomNotification(ctx, tx, d, out)
	})
	if err != nil {
		return nil, err
	}
	if d.Topic == jobs.TopicRequest || d.Topic == jobs.TopicReminder {
		token, err := n.rooms.IssueOneTap(ctx, n.pool, d.RoomID, d.ConfirmationID, string(d.Channel))
		if err != nil {
			return nil, err
		}
		out.OneTapURL = n.baseURL + "/c/" + token
	}
	if !d.Topic.Critical() && d.Channel == jobs.ChannelEmail {
		out.UnsubscribeURL = n.UnsubscribeURL(d.UserID)
	}
	return out, nil
}

func topicGroup(t jobs.Topic) string {
	if t.Critical() {
		return "requests"
	}
	return "notices"
}

// roomNotification fills in the room as the recipient sees it, read with
// their context and the parties' names in one statement.
func (n *Notifications) roomNotification(ctx context.Context, tx pgx.Tx, d jobs.Delivery, out *jobs.Notification) error {
	row, err := selectRoomFor(ctx, tx, d.RoomID, d.Side)
	if ErrorCodeOf(err) == ErrNotFound {
		return jobs.Skip("the room no longer exists")
	}
	if err != nil {
		return err
	}
	ld, err := n.rooms.restoreFor(row, d.Side)
	if err != nil {
		return err
	}
	r, p := ld.room, row.party(d.Side)
	if p == nil || p.OwnerUserID == nil || *p.OwnerUserID != d.UserID {
		return jobs.Skip("no longer this side's human")
	}
	if d.Topic == jobs.TopicRequest || d.Topic == jobs.TopicReminder {
		c := r.PendingFor(d.Side)
		if c == nil || c.ID != d.ConfirmationID {
			return jobs.Skip("the confirmation is no longer pending")
		}
		out.Verdict = c.Verdict
	}
	out.RoomURL = n.baseURL + "/rooms/" + strconv.FormatInt(d.RoomID, 10)
	out.Deadline, out.ClosedReason = r.Deadline, r.ClosedReason
	if row.Title != nil {
		out.Title = *row.Title
	}
	seen, tz, err := n.rooms.seatHuman(ctx, tx, ld, d.Side)
	if err != nil {
		return err
	}
	out.TimeZone = tz
	out.Card = r.Card(d.Side, seen, tz)
	if mine := r.Party(d.Side).Schema; mine != nil {
		for _, name := range r.NoDeal {
			if f, ok := mine.Field(name); ok {
				out.NoDeal = append(out.NoDeal, f.Label)
			}
		}
	}
	out.Agent, out.Them = partyNames(row, d.Side)
	return nil
}

// partyNames is the side's agent and the other side's account, by name, as
// selectRoomFor read them.
func partyNames(row *roomRow, side negotiation.Side) (agent, them string) {
	if row.human.agent != nil {
		agent = *row.human.agent
	}
	o := row.party(side.Other())
	switch {
	case o == nil && side == negotiation.SideA:
		them = "the person you invite"
	case o == nil || o.AccountID == nil:
		them = "the person you invited"
		if side == negotiation.SideB {
			them = "the inviter"
		}
	case row.human.them != nil:
		them = *row.human.them
	}
	return agent, them
}

func selectPushTarget(ctx context.Context, q querier, userID, id int64) (*jobs.Device, error) {
	t := &jobs.Device{}
	err := q.QueryRow(ctx, `SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = $1 AND id = $2`, userID, id).
		Scan(&t.Endpoint, &t.P256dh, &t.Auth)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, jobs.Skip("the device unsubscribed")
	}
	return t, err
}

// Remind fans out the reminder of a confirmation that still waits, to the
// channels its human allows now (jobs.Deliveries), and schedules the next
// reminder (jobs.NextReminder). An answered, replaced or voided
// confirmation, or a finished room, is not reminded of.
func (n *Notifications) Remind(ctx context.Context, a jobs.RemindArgs) error {
	return pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		ld, err := n.rooms.load(ctx, tx, a.RoomID, false)
		if ErrorCodeOf(err) == ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		c := ld.room.PendingFor(a.Side)
		p := ld.row.party(a.Side)
		if c == nil || c.ID != a.ConfirmationID || ld.room.State.Terminal() || p == nil || p.OwnerUserID == nil {
			return nil
		}
		now := n.now()
		var next []jobs.RemindArgs
		if r, ok := jobs.NextReminder(a, ld.room.Deadline, now); ok {
			next = append(next, r)
		}
		return enqueueNotices(ctx, tx, n.river, now, []jobs.Notice{{Topic: jobs.TopicReminder, RoomID: a.RoomID,
			Side: a.Side, UserID: *p.OwnerUserID, ConfirmationID: a.ConfirmationID, Before: a.Before}}, next)
	})
}
