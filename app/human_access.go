package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// A signed-in person's access to a room's seats, as May decides it.

// humanSide finds the seat of the room that userID may see (access.go):
// want, if given and seen; else the one they answer for; else the first.
// A room with no such seat is not found, whether it exists or not.
func humanSide(ctx context.Context, q querier, userID, roomID int64, want negotiation.Side) (seatAccess, error) {
	seats, err := selectSeatAccess(ctx, q, userID, roomID)
	if err != nil {
		return seatAccess{}, fmt.Errorf("room access: %w", err)
	}
	var seen []seatAccess
	for _, st := range seats {
		if May(st.Role, ActSeeRoom, whoseOf(st.Owner, userID)) {
			seen = append(seen, st)
		}
	}
	if len(seen) == 0 {
		return seatAccess{}, refuse(ErrNotFound, "error.no_room", "room not found")
	}
	for _, st := range seen {
		if negotiation.Side(st.Side) == want {
			return st, nil
		}
	}
	return seen[0], nil
}

// access fills what the viewer may do with the side of row and whose it
// is.
func (h *HumanRoom) access(ctx context.Context, q querier, row *roomRow, seat seatAccess, userID int64) error {
	whose := whoseOf(seat.Owner, userID)
	h.CanDecide = May(seat.Role, ActDecide, whose)
	if whose == Nobodys && answersTheOtherSide(row, negotiation.Side(seat.Side), userID) {
		h.CanDecide, h.OtherSide = false, true
	} else if whose == Nobodys && h.CanDecide {
		answered, err := answeredTheOtherSide(ctx, q, row, negotiation.Side(seat.Side), userID)
		if err != nil {
			return err
		}
		if answered {
			h.CanDecide, h.AnsweredOtherSide = false, true
		}
	}
	h.SeatHuman, h.SeatIsYou, h.SeatOrphaned = seat.OwnerEmail, whose == Mine, whose == Nobodys
	h.CanCancel = whose == Nobodys && h.CanDecide && !h.View.State.Terminal()
	notes, err := selectRoomNotes(ctx, q, h.View.RoomID, seat.Side)
	h.Notes = notes
	return err
}

// answersTheOtherSide reports whether userID is the human of row's other
// side than side. They do not answer side's confirmations for its human
// who left the account, owner though they are: a room's two sides answer
// to two humans (a join by an agent of the opener's own human is refused,
// errOwnInvitation), and answering both, they would agree with themselves.
func answersTheOtherSide(row *roomRow, side negotiation.Side, userID int64) bool {
	o := row.party(side.Other())
	return userID != 0 && o != nil && o.OwnerUserID != nil && *o.OwnerUserID == userID
}

// answeredTheOtherSide reports whether userID answered a confirmation of
// row's other side than side (as its human, or for it once its human
// left): someone who may answer both seats of a room (an owner of both
// accounts, both seats' humans gone) answers for one only, or they would
// agree with themselves.
func answeredTheOtherSide(ctx context.Context, q querier, row *roomRow, side negotiation.Side, userID int64) (bool, error) {
	if userID == 0 {
		return false, nil
	}
	return sideAnsweredBy(ctx, q, row.ID, side.Other(), userID)
}

// errAnsweredOtherSide refuses an owner's answer for a seat whose human
// left, in a room where they answered the other side (answeredTheOtherSide).
var errAnsweredOtherSide = refuse(ErrConflict, "lv17_error.answered_other_side",
	"confirmation: you answered for the other side of this room, and nobody answers both sides of a room; the account's other owners answer for this side, whose human left")

// errBothSides refuses an owner's answer for a seat whose human left, in a
// room where they are the other side's human (answersTheOtherSide).
var errBothSides = refuse(ErrConflict, "team16_error.both_sides",
	"confirmation: you are the other side's human in this room, and nobody answers both sides of a room; the account's other owners answer for this side, whose human left")

// ownedSide finds the side of the confirmation, and whether userID may
// answer it (access.go).
func ownedSide(ctx context.Context, q querier, ld *loaded, userID int64, confirmationID string) (negotiation.Side, bool, error) {
	side, err := selectConfirmationSide(ctx, q, ld.row.ID, confirmationID)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	seats, err := selectSeatAccess(ctx, q, userID, ld.row.ID)
	if err != nil {
		return "", false, err
	}
	for _, st := range seats {
		if negotiation.Side(st.Side) == side {
			return side, May(st.Role, ActDecide, whoseOf(st.Owner, userID)), nil
		}
	}
	return side, false, nil
}
