package app

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// RemindDue sends the reminders due at the database's clock (or a test's
// simulated one, Rooms.dbMoment) of at most limit
// pending confirmations (jobs.DueReminders), and of at most limit persons'
// turns (remindPersons), and returns how many it found due. In one transaction: the confirmations are locked, each one's
// reminder due is decided (negotiation.DueReminder: the latest due, none
// at or after the deadline), the notification jobs go in with one
// InsertManyTx, and each confirmation's next reminder is written, so a
// committed sweep never loses a reminder and a second one finds nothing
// due. The notice's worker checks again that the confirmation still waits
// when it writes the message.
func (n *Notifications) RemindDue(ctx context.Context, limit int) (int, error) {
	now, at := n.now(), n.dbMoment()
	found := 0
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		due, err := selectDueReminders(ctx, tx, at, limit)
		if err != nil {
			return err
		}
		if len(due) > 0 && at == nil {
			now = due[0].dbNow // the same for every row: the transaction's
		}
		found = len(due)
		var notices []jobs.Notice
		next := make([]*time.Time, len(due))
		for i, d := range due {
			if len(d.remind) == 0 {
				continue // nobody to remind: no reminder is left
			}
			var since time.Time
			if d.remindAt != nil {
				since = *d.remindAt
			}
			r, send, at := negotiation.DueReminder(d.requestedAt, d.deadline, since, now)
			for _, user := range d.remind {
				if !send {
					break
				}
				notices = append(notices, jobs.Notice{Topic: jobs.TopicReminder, RoomID: d.roomID, Side: d.side,
					UserID: user, ConfirmationID: d.id, Before: r.Name})
			}
			if !at.IsZero() {
				next[i] = &at
			}
		}
		if err := enqueueNotices(ctx, tx, nil, n.river, now, notices, nil, ""); err != nil {
			return err
		}
		if err := updateRemindAt(ctx, tx, due, next); err != nil {
			return err
		}
		persons, err := n.remindPersons(ctx, tx, at, now, limit)
		found += persons
		return err
	})
	return found, err
}

// remindPersons is RemindDue for the rooms whose person (side b, no
// account) is reminded of their turn (migration 00031): the same moments
// (negotiation.DueReminder, counted from when the turn passed to them),
// one mail to their address with their personal link. It returns how many
// rooms it found due.
func (n *Notifications) remindPersons(ctx context.Context, tx pgx.Tx, at *time.Time, now time.Time, limit int) (int, error) {
	due, err := selectDuePersonReminders(ctx, tx, at, limit)
	if err != nil {
		return 0, err
	}
	if len(due) > 0 && at == nil {
		now = due[0].dbNow
	}
	next := make([]*time.Time, len(due))
	for i, d := range due {
		if d.email == "" || d.turnAt.IsZero() {
			continue // nobody to remind: no reminder is left
		}
		var since time.Time
		if d.remindAt != nil {
			since = *d.remindAt
		}
		r, send, at := negotiation.DueReminder(d.turnAt, d.deadline, since, now)
		if !at.IsZero() {
			next[i] = &at
		}
		if !send {
			continue
		}
		notice := jobs.Notice{Topic: jobs.TopicReminder, RoomID: d.roomID, Side: negotiation.SideB, Before: r.Name, Seq: d.seq}
		if err := enqueueNotices(ctx, tx, nil, n.river, now, []jobs.Notice{notice}, nil, d.email); err != nil {
			return 0, err
		}
	}
	return len(due), updatePersonRemindAt(ctx, tx, due, next)
}

var _ jobs.DueReminders = (*Notifications)(nil)
