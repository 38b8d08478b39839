package app

import (
	"context"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// A member who leaves an account (or is removed) leaves their open rooms
// to its owners (Accounts.remove): their agents' keys are revoked, so no
// agent moves those seats any more, and the owners answer the seats'
// confirmations. An owner may go on (give the agent a new key in
// Settings), answer what is asked, or end the negotiation here: the room
// closes as a human's cancel ("cancelled", "withdrawn" for a draft), by
// the protocol's own moves (a cancel asked for the seat and confirmed by
// the owner, in one transaction), and the other side is told with the
// closed notice, as of any cancel. Left alone, the room closes at its
// deadline, as any room.

// CancelForSeat is userID's cancel of the room for its side whose human
// left the account; they must be one who answers for such a seat (an
// owner), and not the room's other side's human or one who answered for
// it (nobody answers both sides). A room closed already is refused.
func (s *Rooms) CancelForSeat(ctx context.Context, userID, roomID int64, side negotiation.Side) (*Decision, error) {
	var d *Decision
	err := s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.loadLax(ctx, tx, roomID, true) // a cancel needs no limits
		if err != nil {
			return err
		}
		seats, err := selectSeatAccess(ctx, tx, userID, roomID)
		if err != nil {
			return err
		}
		var st *seatAccess
		for i := range seats {
			if negotiation.Side(seats[i].Side) == side && May(seats[i].Role, ActSeeRoom, whoseOf(seats[i].Owner, userID)) {
				st = &seats[i]
			}
		}
		if st == nil {
			return refuse(ErrNotFound, "error.no_room", "room not found")
		}
		if whoseOf(st.Owner, userID) != Nobodys || !May(st.Role, ActDecide, Nobodys) {
			return refuse(ErrUnauthorized, "lv17_error.cancel_who",
				"cancel: only the account's owners cancel a room, and only for a side whose human left the account")
		}
		if ld.room.State.Terminal() {
			return refuse(ErrConflict, "lv17_error.cancel_closed", "cancel: the room is closed already")
		}
		p := ld.room.PendingFor(side)
		if p == nil || p.Verdict != negotiation.VerdictCancel {
			next, ev, err := ld.room.Request(side, negotiation.VerdictCancel, "", newConfirmationID(), s.clock(ld.row), ld.row.announcement(side))
			if err != nil {
				return fromProtocol(err)
			}
			if err := s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}}); err != nil {
				return err
			}
			p = ld.room.PendingFor(side)
		}
		d, err = s.decide(ctx, tx, ld, side, p.ID, p.SubjectHash, true, answeredBy{receipt.ChannelDashboard, &userID}, userID)
		return err
	})
	return d, err
}
