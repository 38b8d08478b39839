package app

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// CloseDue closes at most limit rooms due at the rooms' clock's now: an
// invitation nobody answered in time (expired), a deadline passed
// unagreed (lapsed). It returns how many due rooms it found. Each room is
// closed in a transaction of its own, through the protocol
// (negotiation.Room.CloseDue), with the notices it causes, closeParallel
// rooms at once; a room another
// sweep or a move closed meanwhile is left as it is, so a sweep is safe
// to run late, twice, or beside another. A room that fails to close does
// not stop the others: the errors are returned together.
func (s *Rooms) CloseDue(ctx context.Context, limit int) (int, error) {
	ids, err := selectDueRooms(ctx, s.pool, s.dbMoment(), limit)
	if err != nil {
		return 0, err
	}
	errs := make([]error, len(ids))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(closeParallel, len(ids)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(ids); i = int(next.Add(1) - 1) {
				errs[i] = s.closeIfDue(ctx, ids[i])
			}
		})
	}
	wg.Wait()
	return len(ids), errors.Join(errs...)
}

// closeParallel is how many due rooms CloseDue closes at once, each in its
// own transaction on its own connection: one at a time, a sweep of
// rooms falling due at 200 a second spent its whole interval closing them
// and fell behind.
const closeParallel = 4

// closeIfDue closes a room if it is due now.
func (s *Rooms) closeIfDue(ctx context.Context, roomID int64) error {
	return s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.loadLax(ctx, tx, roomID, true) // closing needs no limits
		if ErrorCodeOf(err) == ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		next, ev, err := ld.room.CloseDue(s.clock(ld.row))
		if err != nil { // not due: closed meanwhile
			return nil
		}
		return s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}})
	})
}

var _ jobs.DueRooms = (*Rooms)(nil)
