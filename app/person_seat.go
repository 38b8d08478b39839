package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// personSeat finds the room a person's token opens.
func personSeat(ctx context.Context, q querier, token string) (int64, error) {
	if !strings.HasPrefix(token, personTokenPrefix) {
		return 0, refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	roomID, err := selectPersonSeat(ctx, q, secretHash(token))
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, refuse(ErrNotFound, "error.link_not_valid", "this link is not valid")
	}
	return roomID, err
}

// PersonRoom reads the room a person's token opens, as they see it (side b,
// the inviter's schema) in loc. It changes nothing.
func (s *Rooms) PersonRoom(ctx context.Context, token string, loc *time.Location) (*HumanRoom, error) {
	var h *HumanRoom
	err := pgx.BeginTxFunc(ctx, s.pool, readOnly, func(tx pgx.Tx) error {
		roomID, err := personSeat(ctx, tx, token)
		if err != nil {
			return err
		}
		ld, err := s.load(ctx, tx, roomID, false)
		if err != nil {
			return err
		}
		h, err = s.humanRoom(ctx, tx, ld, negotiation.SideB, 0, loc)
		if err != nil {
			return err
		}
		h.CanDecide = true // their tap is their confirmation
		if h.Card != nil && !personAsked(ld.room) {
			// The new-schema note is for terms they are asked to confirm:
			// not under their own proposal, nor once the room ended.
			h.Card.NewSchema = false
		}
		return nil
	})
	return h, err
}

// personAsked reports whether the room asks its person (side b) to
// confirm terms now: their turn in a live room, with the other side's
// terms on the table, or their own once the other side approved them.
func personAsked(r *negotiation.Room) bool {
	b := negotiation.SideB
	return !r.State.Terminal() && r.Turn == b && r.Table != nil && (r.Table.By != b || r.Approval(b.Other()) != "")
}

// AnswerAsPerson applies a seated person's answer (see PersonAnswer).
func (s *Rooms) AnswerAsPerson(ctx context.Context, token string, ans PersonAnswer) (*PersonResult, error) {
	res := &PersonResult{}
	err := s.inTx(ctx, func(tx *roomTx) error {
		roomID, err := personSeat(ctx, tx, token)
		if err != nil {
			return err
		}
		ld, err := s.load(ctx, tx, roomID, true)
		if err != nil {
			return err
		}
		next, events, err := ld.room.Answer(negotiation.SideB, ans.protocol(), newConfirmationID(), s.now())
		if err != nil {
			return fromProtocol(err)
		}
		if err := s.commit(ctx, tx, ld, change{next: next, events: events}); err != nil {
			return err
		}
		res.RoomID, res.State = roomID, next.State
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// PersonRoomID is the room a person's token opens (for live updates).
func (s *Rooms) PersonRoomID(ctx context.Context, token string) (int64, error) {
	return personSeat(ctx, s.pool, token)
}
