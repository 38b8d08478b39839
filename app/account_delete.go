package app

import (
	"context"
	"errors"

	"github.com/taasky/taasky/negotiation"
)

// The first step of deleting an account (issue 16 item 4, not finished:
// the DeleteAccount use case that confirms the typed slug, revokes keys
// and sessions and erases personal data is still to come): every open
// room the account sits in closes with the reason account_deleted, each
// by the protocol (negotiation.Room.CloseAccountDeleted) and committed as
// any close is, so the other side gets the normal closed notices. Agreed
// and closed rooms are left whole.

// closeAccountRooms closes the account's open rooms; it returns how many
// it closed.
func (s *Rooms) closeAccountRooms(ctx context.Context, accountID int64) (int, error) {
	seats, err := selectAccountSeats(ctx, s.pool, accountID)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, st := range seats {
		closed, err := s.closeForDeletedAccount(ctx, st.roomID)
		if closed {
			n++
		}
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}

// closeForDeletedAccount closes the room if it is open.
func (s *Rooms) closeForDeletedAccount(ctx context.Context, roomID int64) (bool, error) {
	closed := false
	err := s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.load(ctx, tx, roomID, true)
		if err != nil {
			return err
		}
		if ld.room.State.Terminal() {
			return nil
		}
		next, ev, err := ld.room.CloseAccountDeleted(s.now())
		if err != nil {
			return err
		}
		closed = true
		return s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}})
	})
	return closed && err == nil, err
}
