package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// fanOut inserts, in the change's transaction, the notification jobs the
// change causes: a request to the human of each new pending confirmation
// (its reminders are the sweep's: RemindDue), and notices to both humans
// when the room is agreed or closed, or, at the join, when no deal is
// possible. A person answering in the browser (side b, no account) who
// left an address is told when the room is agreed or closed, and when the
// other side's move makes it their turn: they have no agent watching the
// room for them. A rolled-back change sends nothing; a committed one never
// loses its notifications.
func (s *Rooms) fanOut(ctx context.Context, tx pgx.Tx, folded *[]foldedWrite, ld *loaded, c change) error {
	before, after := ld.room, c.next
	var notices []jobs.Notice
	owner := func(side negotiation.Side) int64 {
		if p := ld.row.party(side); p != nil && p.OwnerUserID != nil {
			return *p.OwnerUserID
		}
		return 0 // a person answering in the browser, or nobody yet
	}
	now := s.clock(ld.row)
	for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		was, is := before.PendingFor(side), after.PendingFor(side)
		if is == nil || (was != nil && was.ID == is.ID) {
			continue
		}
		user := owner(side)
		if user == 0 {
			continue
		}
		notices = append(notices, jobs.Notice{Topic: jobs.TopicRequest, RoomID: ld.row.ID, Side: side, UserID: user, ConfirmationID: is.ID})
	}
	var topic jobs.Topic
	switch {
	case !before.State.Terminal() && after.State == negotiation.StateAgreed:
		topic = jobs.TopicAgreed
	case !before.State.Terminal() && after.State == negotiation.StateClosed:
		topic = jobs.TopicClosed
	case len(after.NoDeal) > 0 && joined(c.events):
		topic = jobs.TopicNoDeal
	}
	if topic != "" {
		for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
			if user := owner(side); user != 0 {
				notices = append(notices, jobs.Notice{Topic: topic, RoomID: ld.row.ID, Side: side, UserID: user})
			}
		}
	}
	person := personAddress(ld.row)
	if person != "" {
		switch {
		case topic == jobs.TopicAgreed || topic == jobs.TopicClosed:
			notices = append(notices, jobs.Notice{Topic: topic, RoomID: ld.row.ID, Side: negotiation.SideB})
		case becameTurnOf(negotiation.SideB, before, after, c.events):
			notices = append(notices, jobs.Notice{Topic: jobs.TopicTurn, RoomID: ld.row.ID, Side: negotiation.SideB, Seq: ld.row.Seq})
		}
	}
	return enqueueNotices(ctx, tx, folded, s.river, now, notices, ld.row.recips, person)
}

// routes are where a notice of topic t reaches r: their address when
// their settings allow email for it ("" otherwise), and their devices when
// they allow push.
func (r *recipient) routes(t jobs.Topic) (email string, subs []subRef) {
	if r.prefs.allows(jobs.ChannelEmail, t) {
		email = r.email
	}
	if r.prefs.allows(jobs.ChannelPush, t) {
		subs = r.subs
	}
	return email, subs
}

// announcement is whether a request to side's human would reach them by a
// message (fanOut sends it in the same transaction, from the same
// recipients): Unannounced only when the room's statement read their
// settings and devices and these allow none. A human not read with the
// room counts as announced, as before the protocol knew the difference.
func (row *roomRow) announcement(side negotiation.Side) negotiation.Announcement {
	p := row.party(side)
	if p == nil || p.OwnerUserID == nil {
		return negotiation.Announced
	}
	return announcementTo(row.recips, *p.OwnerUserID)
}

// announcementTo is announcement for user among recips.
func announcementTo(recips map[int64]*recipient, user int64) negotiation.Announcement {
	r, ok := recips[user]
	if !ok {
		return negotiation.Announced
	}
	if email, subs := r.routes(jobs.TopicRequest); email == "" && len(subs) == 0 {
		return negotiation.Unannounced
	}
	return negotiation.Announced
}

// personAddress is where the news of the room's person goes: side b's
// address when a person answering in the browser sits there ("" for
// none).
func personAddress(row *roomRow) string {
	if p := row.party(negotiation.SideB); p != nil && p.AccountID == nil && p.PersonEmail != nil {
		return *p.PersonEmail
	}
	return ""
}

// becameTurnOf reports whether the change made it side's turn in a live
// room by a move of the other side (an offer, a counter, a request for
// detail, an approval its human released).
func becameTurnOf(side negotiation.Side, before, after *negotiation.Room, events []negotiation.Event) bool {
	if after.State != negotiation.StateAwaiting || after.Turn != side ||
		(before.State == negotiation.StateAwaiting && before.Turn == side) {
		return false
	}
	return negotiation.TurnMove(events, side) != ""
}

func joined(events []negotiation.Event) bool {
	for _, ev := range events {
		if ev.Kind == negotiation.EventJoin {
			return true
		}
	}
	return false
}

// enqueueNotices inserts one job per notice and channel its human allows
// (email to their address; push to each of their devices; known holds
// the recipients read with the room, else they are read here), all in one
// InsertManyTx, and logs each job as queued: folded into a statement the
// caller sends after it (folded), else by a statement of its own. A
// notice to user 0 goes to the room's person, by email to person ("":
// nowhere). Jobs are unique by their args: inserting the same notice
// twice makes one job.
func enqueueNotices(ctx context.Context, tx pgx.Tx, folded *[]foldedWrite, rc *river.Client[pgx.Tx], now time.Time, notices []jobs.Notice, known map[int64]*recipient, person string) error {
	if len(notices) == 0 {
		return nil
	}
	users := make([]int64, 0, len(notices))
	recips := known
	for _, n := range notices {
		if n.UserID == 0 {
			continue
		}
		users = append(users, n.UserID)
		if _, ok := known[n.UserID]; !ok {
			recips = nil
		}
	}
	if recips == nil && len(users) > 0 {
		var err error
		if recips, err = selectRecipients(ctx, tx, users); err != nil {
			return err
		}
	}
	var params []river.InsertManyParams
	var logged []delivery
	for _, n := range notices {
		if n.UserID == 0 {
			if person != "" {
				var args river.JobArgs = jobs.EmailArgs{Notice: n}
				if n.Topic == jobs.TopicReminder {
					args = jobs.PersonReminderArgs{Notice: n}
				}
				params = append(params, river.InsertManyParams{Args: args})
				logged = append(logged, delivery{Notice: n, Channel: jobs.ChannelEmail, Recipient: person})
			}
			continue
		}
		r, ok := recips[n.UserID]
		if !ok {
			continue
		}
		email, subs := r.routes(n.Topic)
		if email != "" {
			params = append(params, river.InsertManyParams{Args: jobs.EmailArgs{Notice: n}})
			logged = append(logged, delivery{Notice: n, Channel: jobs.ChannelEmail, Recipient: email})
		}
		for _, sub := range subs {
			params = append(params, river.InsertManyParams{Args: jobs.PushArgs{Notice: n, SubscriptionID: sub.id}})
			logged = append(logged, delivery{Notice: n, Channel: jobs.ChannelPush, SubscriptionID: sub.id, Recipient: sub.host})
		}
	}
	if len(params) == 0 {
		return nil
	}
	res, err := rc.InsertManyTx(ctx, tx, params)
	if err != nil {
		return fmt.Errorf("insert notification jobs: %w", err)
	}
	if err := matchJobIDs(logged, res); err != nil {
		return err
	}
	if folded != nil {
		*folded = append(*folded, queuedWrites(logged, &now)...)
		return nil
	}
	return insertQueued(ctx, tx, logged, &now)
}

// matchJobIDs sets each delivery's job id from the inserted jobs, matched
// by their args (unique per job), not by the order of the results.
func matchJobIDs(ds []delivery, res []*rivertype.JobInsertResult) error {
	type key struct {
		ch  jobs.Channel
		n   jobs.Notice
		sub int64
	}
	ids := make(map[key]int64, len(res))
	for _, r := range res {
		switch r.Job.Kind {
		case jobs.EmailArgs{}.Kind(), jobs.PersonReminderArgs{}.Kind():
			var a jobs.EmailArgs
			if err := json.Unmarshal(r.Job.EncodedArgs, &a); err != nil {
				return err
			}
			ids[key{jobs.ChannelEmail, a.Notice, 0}] = r.Job.ID
		case jobs.PushArgs{}.Kind():
			var a jobs.PushArgs
			if err := json.Unmarshal(r.Job.EncodedArgs, &a); err != nil {
				return err
			}
			ids[key{jobs.ChannelPush, a.Notice, a.SubscriptionID}] = r.Job.ID
		}
	}
	for i, d := range ds {
		id, ok := ids[key{d.Channel, d.Notice, d.SubscriptionID}]
		if !ok {
			return fmt.Errorf("notification job of %+v not found among the inserted", d.Notice)
		}
		ds[i].JobID = id
	}
	return nil
}
