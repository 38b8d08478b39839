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
	var err error
	if out.Installation, err = n.install.get(ctx, n.pool); err != nil {
		return nil, err
	}
	var token string
	switch {
	case d.Topic == jobs.TopicTest:
		err = n.testNotification(ctx, d, out)
	case d.UserID == 0:
		err = n.personNotification(ctx, d, out)
	default:
		var ot *oneTapIssue
		if d.Topic == jobs.TopicRequest || d.Topic == jobs.TopicReminder {
			// Stored by the notice's read, for this message.
			token = newOneTap()
			ot = &oneTapIssue{hash: secretHash(token), confirmationID: d.ConfirmationID, at: n.rooms.now()}
		}
		err = n.roomNotification(ctx, d, out, ot)
	}
	if err != nil {
		return nil, err
	}
	if token != "" {
		out.OneTapURL = n.baseURL + "/c/" + token
	}
	switch {
	case d.UserID == 0:
		out.UnsubscribeURL = n.personUnsubscribeURL(d.RoomID)
	case !d.Topic.Critical() && d.Channel == jobs.ChannelEmail:
		out.UnsubscribeURL = n.UnsubscribeURL(d.UserID)
	}
	if d.Topic == jobs.TopicAgreed && d.Channel == jobs.ChannelEmail && out.Receipt == "" && n.rooms.receipts != nil {
		if out.Receipt, err = n.rooms.Receipt(ctx, d.RoomID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// roomUID names a room in no other database (jobs.UniqueID): the UIDs of
// its calendar entries, and the thread its mails refer to.
func roomUID(installation string, roomID int64, openedAt time.Time) string {
	return jobs.UniqueID(installation, "room", strconv.FormatInt(roomID, 10), strconv.FormatInt(openedAt.UnixNano(), 10))
}

// address checks that the recipient (nil: gone) may be told d now, on its
// channel, and says where: their email address, or their device (nil:
// unsubscribed).
func address(d jobs.Delivery, r *recipient, device *jobs.Device, out *jobs.Notification) error {
	if r == nil {
		return jobs.Skip("the user no longer exists")
	}
	out.Lang = r.lang
	if !r.prefs.allows(d.Channel, d.Topic) {
		return jobs.Skip(string(d.Channel) + " " + topicGroup(d.Topic) + " are turned off")
	}
	switch d.Channel {
	case jobs.ChannelEmail:
		out.To = r.email
	case jobs.ChannelPush:
		if device == nil {
			return jobs.Skip("the device unsubscribed")
		}
		out.Push = device
	}
	return nil
}

// testNotification addresses a test message, which is about no room.
func (n *Notifications) testNotification(ctx context.Context, d jobs.Delivery, out *jobs.Notification) error {
	recips, err := selectRecipients(ctx, n.pool, []int64{d.UserID})
	if err != nil {
		return err
	}
	var device *jobs.Device
	if d.Channel == jobs.ChannelPush {
		if device, err = selectPushDevice(ctx, n.pool, d.UserID, d.SubscriptionID); err != nil {
			return err
		}
	}
	return address(d, recips[d.UserID], device, out)
}

func topicGroup(t jobs.Topic) string {
	if t.Critical() {
		return "requests"
	}
	return "notices"
}

// roomNotification addresses a notice about a room and fills in the room
// as the recipient sees it, all read as of one moment, in one statement
// (selectNotice), which also stores ot, a request's or a reminder's
// one-tap token, if its confirmation is pending.
func (n *Notifications) roomNotification(ctx context.Context, d jobs.Delivery, out *jobs.Notification, ot *oneTapIssue) error {
	row, nt, err := selectNotice(ctx, n.pool, d.RoomID, d.Side, d.UserID, d.SubscriptionID, d.JobID, d.Channel, ot)
	if errors.Is(err, pgx.ErrNoRows) {
		return jobs.Skip("the room no longer exists")
	}
	if err != nil {
		return err
	}
	if nt.earlier != nil {
		return jobs.WaitFor(*nt.earlier) // no token was stored
	}
	h := nt.human
	if nt.receipt != nil && d.Topic == jobs.TopicAgreed && d.Channel == jobs.ChannelEmail {
		out.Receipt = *nt.receipt // else Notification issues it
	}
	if err := address(d, nt.recipient, nt.device, out); err != nil {
		return err
	}
	p := row.party(d.Side)
	if p == nil || p.Side != d.Side {
		return jobs.Skip("no longer this side's human")
	}
	if p.OwnerUserID == nil || *p.OwnerUserID != d.UserID {
		// A request to an owner for a side whose human left (askOwners).
		ok, err := n.answersForNobody(ctx, row, p, d)
		if err != nil {
			return err
		}
		if !ok {
			return jobs.Skip("no longer this side's human")
		}
		out.HandedOver = true
	}
	row.setHuman(p.Side, h)
	ld, err := n.rooms.restoreLax(row, p.Side) // this side's limits only
	if err != nil {
		return err
	}
	r := ld.room
	if d.Topic == jobs.TopicRequest || d.Topic == jobs.TopicReminder {
		// The room and the confirmations are written by the same moves:
		// the token is stored exactly when the room has it pending. Should
		// they differ, no message goes with a link that opens nothing.
		c := r.PendingFor(d.Side)
		if c == nil || c.ID != d.ConfirmationID || !nt.issued {
			return jobs.Skip("the confirmation is no longer pending")
		}
		out.Verdict = c.Verdict
	}
	if ld.sealed && out.Verdict != negotiation.VerdictCancel && !r.State.Terminal() {
		// Its limits were sealed under another key: only its cancel and
		// its end are told, the rest would be shown without them.
		return jobs.Skip("the room's limits were sealed under another SECRET_KEY")
	}
	out.RoomURL = n.baseURL + "/rooms/" + strconv.FormatInt(d.RoomID, 10)
	out.RoomUID = roomUID(out.Installation, d.RoomID, r.OpenedAt)
	out.Deadline, out.ClosedReason = r.Deadline, r.ClosedReason
	if row.Title != nil {
		out.Title = *row.Title
	}
	seen, tz, _, err := n.rooms.seatHuman(ctx, n.pool, ld, d.Side)
	if err != nil {
		return err
	}
	if out.HandedOver {
		// The side has no human (their zone would be UTC): the request
		// is read by the owner it went to, in their zone.
		tz = n.rooms.zoneOf(nt.zone)
	}
	out.TimeZone = tz
	out.Card = r.Card(d.Side, seen, tz)
	out.NoDeal = r.NoDealNotes(d.Side)
	out.Agent, out.Them, out.ThemKey = partyNames(row, d.Side, h)
	return nil
}

// answersForNobody reports whether d is a request to a person who answers
// for p because p's human left the account: p has no human, and the
// recipient may answer nobody's confirmations there (an owner), unless
// they are the room's other side's human (answersTheOtherSide) or
// answered for it (answeredTheOtherSide).
func (n *Notifications) answersForNobody(ctx context.Context, row *roomRow, p *partyRow, d jobs.Delivery) (bool, error) {
	if p.OwnerUserID != nil || p.AccountID == nil || (d.Topic != jobs.TopicRequest && d.Topic != jobs.TopicReminder) ||
		answersTheOtherSide(row, p.Side, d.UserID) {
		return false, nil
	}
	m, err := selectMembershipByID(ctx, n.pool, d.UserID, *p.AccountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	if !May(m.Role, ActDecide, Nobodys) {
		return false, nil
	}
	answered, err := answeredTheOtherSide(ctx, n.pool, row, p.Side, d.UserID)
	return !answered, err
}

// theirAccountDeleted reports whether the other side's account was
// deleted: its party names an account, whose name (read with it) is gone.
func theirAccountDeleted(o *partyRow, name *string) bool {
	return o != nil && o.AccountID != nil && name == nil
}

// partyNames is the side's agent and the other side's account, by name,
// from what selectNotice read of them (h).
func partyNames(row *roomRow, side negotiation.Side, h *humanRow) (agent, them, themKey string) {
	if h.agent != nil {
		agent = shownName(*h.agent) // as scanAgent shows it
	}
	o := row.party(side.Other())
	switch {
	case theirAccountDeleted(o, h.them):
		themKey = "party.deleted_account"
	case o == nil && side == negotiation.SideA:
		themKey = "party.to_invite"
	case o == nil || o.AccountID == nil:
		themKey = "party.invited"
		if side == negotiation.SideB {
			themKey = "party.inviter"
		}
	case h.them != nil:
		them = *h.them
	}
	return agent, them, themKey
}
