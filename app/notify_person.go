package app

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// A person who answered an invitation in the browser (side b, no account)
// is told by email what happens in the room (fanOut): when the other
// side's move makes it their turn, when the room is agreed (with the
// calendar entry and the signed receipt, as the inviter's mail has them),
// when it closes. Their notices are addressed to user 0 of the room, and
// each mail links to their personal page (/p/{token}, the link they were
// given) and carries a List-Unsubscribe link that forgets their address.
// Their address is on their party row; their language, zone and sealed
// link in person_seats (migration 00025).

// personNotification addresses a notice to the room's person and fills
// in the room as they see it (side b, the inviter's schema), re-checking
// that what it tells still holds.
func (n *Notifications) personNotification(ctx context.Context, d jobs.Delivery, out *jobs.Notification) error {
	if d.Side != negotiation.SideB || d.Channel != jobs.ChannelEmail {
		return jobs.Skip("a person is told by email, on side b")
	}
	row, pn, err := selectPersonNotice(ctx, n.pool, d.RoomID, d.JobID)
	if errors.Is(err, pgx.ErrNoRows) {
		return jobs.Skip("the room no longer exists")
	}
	if err != nil {
		return err
	}
	if pn.earlier != nil {
		return jobs.WaitFor(*pn.earlier)
	}
	p := row.party(negotiation.SideB)
	if p == nil || p.AccountID != nil {
		return jobs.Skip("no person sits on side b")
	}
	if p.PersonEmail == nil {
		return jobs.Skip("the person asked for no more email about this room")
	}
	out.To, out.Lang, out.Person = *p.PersonEmail, pn.lang, true
	out.SettingsURL = "" // they have no settings
	if pn.link == nil {
		return jobs.Skip("no personal link is kept for this seat (taken before migration 00025)")
	}
	token, err := n.rooms.openPersonLink(d.RoomID, pn.link)
	if err != nil {
		return jobs.Skip("the personal link cannot be read (was SECRET_KEY changed?)")
	}
	out.RoomURL = n.baseURL + "/p/" + token
	ld, err := n.rooms.restoreFor(row, negotiation.SideB)
	if err != nil {
		return err
	}
	r := ld.room
	switch d.Topic {
	case jobs.TopicTurn:
		events, err := stillTheirTurn(row, r, d.Seq)
		if err != nil {
			return err
		}
		out.Verdict = negotiation.TurnMove(events[:d.Seq], negotiation.SideB)
	case jobs.TopicReminder:
		if _, err := stillTheirTurn(row, r, d.Seq); err != nil {
			return err
		}
	case jobs.TopicAgreed:
		if r.State != negotiation.StateAgreed {
			return jobs.Skip("the room is not agreed")
		}
	case jobs.TopicClosed:
		if r.State != negotiation.StateClosed {
			return jobs.Skip("the room is not closed")
		}
	default:
		return jobs.Skip("a person is not told of " + string(d.Topic))
	}
	tz := time.UTC // their browser never told their zone
	if pn.zone != nil {
		tz = n.rooms.zone(*pn.zone)
	}
	out.TimeZone = tz
	out.RoomUID = roomUID(out.Installation, d.RoomID, r.OpenedAt)
	out.Deadline, out.ClosedReason = r.Deadline, r.ClosedReason
	if row.Title != nil {
		out.Title = *row.Title
	}
	// The schema is the inviter's, which they answer with: nothing is new
	// to them but the terms.
	out.Card = r.Card(negotiation.SideB, true, tz).InvitersLabels()
	out.Agent, out.Them, out.ThemKey = partyNames(row, negotiation.SideB, &humanRow{them: pn.inviter})
	return nil
}

// Their List-Unsubscribe links carry a token that names the room, signed
// with the server's key: nothing is stored, and using it forgets the
// person's address (nothing more is sent to them about the room).
const personUnsubPrefix = "up_"

// personUnsubscribeURL is the List-Unsubscribe link of the mails to the
// room's person: {BASE_URL}/unsubscribe/{token}, like a user's.
func (n *Notifications) personUnsubscribeURL(roomID int64) string {
	return n.baseURL + "/unsubscribe/" + n.signID(personUnsubPrefix, "person-notices", roomID)
}

// personUnsubscribeRoom is the room a person's List-Unsubscribe token
// names, if it is one.
func (n *Notifications) personUnsubscribeRoom(token string) (int64, bool) {
	return n.openSignedID(personUnsubPrefix, "person-notices", token)
}

// PersonUnsubscribeToken reports whether token is the List-Unsubscribe
// token of a mail to a room's person (rather than a user's), changing
// nothing.
func (n *Notifications) PersonUnsubscribeToken(token string) bool {
	_, ok := n.personUnsubscribeRoom(token)
	return ok
}

// UnsubscribePerson forgets the address of the room's person a
// List-Unsubscribe token names, and returns it ("" when it was forgotten
// already): nothing more is emailed to them about the room. Their personal
// link still opens it. It takes the addresses' locks first, as an erasure
// does (store_profile.go): the retention's walk forgetting the addresses of
// the rooms that ended changes the same rows in another order, and takes
// their locks too, before any row; without them the two deadlocked.
func (n *Notifications) UnsubscribePerson(ctx context.Context, token string) (string, error) {
	roomID, ok := n.personUnsubscribeRoom(token)
	if !ok {
		return "", refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	var email string
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		emails, err := selectRoomAddresses(ctx, tx, roomID)
		if err == nil {
			err = lockAddresses(ctx, tx, emails)
		}
		if err == nil {
			email, err = clearPersonEmail(ctx, tx, roomID)
		}
		return err
	})
	return email, err
}

// stillTheirTurn returns the room's log if it is still the person's turn
// that the move at seq passed them (nothing of theirs since), else the
// job's skip.
func stillTheirTurn(row *roomRow, r *negotiation.Room, seq int) ([]negotiation.Event, error) {
	events, err := row.events()
	if err != nil {
		return nil, err
	}
	if r.State != negotiation.StateAwaiting || r.Turn != negotiation.SideB || seq > len(events) {
		return nil, jobs.Skip("no longer their turn")
	}
	for _, ev := range events[seq:] {
		if ev.Side == negotiation.SideB {
			return nil, jobs.Skip("they answered since")
		}
	}
	return events, nil
}
