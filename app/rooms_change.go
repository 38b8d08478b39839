package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// loaded is a locked room: its row and the protocol's view of it.
type loaded struct {
	row  *roomRow
	room *negotiation.Room
}

// load reads (lock: and locks) a room and restores it with both parties'
// limits decrypted.
func (s *Rooms) load(ctx context.Context, q querier, roomID int64, lock bool) (*loaded, error) {
	row, err := selectRoom(ctx, q, roomID, lock)
	if err != nil {
		return nil, err
	}
	return s.restore(row)
}

// restore rebuilds the protocol's room from its row, with both sides' limits.
func (s *Rooms) restore(row *roomRow) (*loaded, error) { return s.restoreFor(row, "") }

// restoreFor is restore with only side's limits ("": both). A request of
// one side never needs the other side's: no decision for a mover and
// nothing shown to it reads them (docs/security.md, promise 3). Leaving
// them out also keeps their size from showing in how long the answer
// takes.
func (s *Rooms) restoreFor(row *roomRow, only negotiation.Side) (*loaded, error) {
	limits, err := s.partyLimits(row, only)
	if err != nil {
		return nil, err
	}
	room, err := negotiation.RestoreWith(s.schemas, []byte(row.Snapshot), limits)
	if err != nil {
		return nil, fmt.Errorf("room %d: %w", row.ID, err)
	}
	return &loaded{row: row, room: room}, nil
}

func (s *Rooms) partyLimits(row *roomRow, only negotiation.Side) ([2][]byte, error) {
	var limits [2][]byte
	for i, p := range row.Parties {
		if p == nil || only != "" && p.Side != only {
			continue
		}
		l, err := s.openLimits(row.ID, string(p.Side), p.LimitsEnc)
		if err != nil {
			return limits, err
		}
		limits[i] = l
	}
	return limits, nil
}

// change is what a use case decided: the room after it, the events to log,
// and why a confirmation came out void, if one did.
type change struct {
	next        *negotiation.Room
	events      []negotiation.Event
	fingerprint []byte // of the agent's move, for retries
	voidWhy     string
}

// commit writes a decided change in the caller's transaction: the events,
// the confirmations' fate, the jobs the change causes and the ones it makes
// moot, and the room. The room's own writes go in one round trip, after
// the jobs (nothing the jobs insert refers to them).
func (s *Rooms) commit(ctx context.Context, tx *roomTx, ld *loaded, c change) error {
	now := s.now()
	var writes pgx.Batch
	for i := range c.events {
		ld.row.Seq++
		logged, err := insertEvent(&writes, ld.row.ID, ld.row.Seq, &c.events[i], c.fingerprint)
		if err != nil {
			return err
		}
		ld.row.log = append(ld.row.log, logged)
	}
	s.syncConfirmations(&writes, ld, c, now)
	if err := s.fanOut(ctx, tx, ld, c); err != nil {
		return err
	}
	if err := s.cancelMootJobs(ctx, tx, ld, c.next); err != nil {
		return err
	}
	ld.row.Snapshot = string(c.next.Snapshot())
	updateRoom(&writes, ld.row, c.next, now)
	if err := tx.SendBatch(ctx, &writes).Close(); err != nil {
		return fmt.Errorf("write room %d: %w", ld.row.ID, err)
	}
	ld.room = c.next
	tx.changed = append(tx.changed, ld.row.ID)
	return nil
}

// syncConfirmations records new pending confirmations and settles the ones
// the change ended: decided by the human, replaced, or voided by the room
// moving on.
func (s *Rooms) syncConfirmations(writes *pgx.Batch, ld *loaded, c change, now time.Time) {
	decided := map[string]negotiation.Result{}
	for _, ev := range c.events {
		if ev.Kind == negotiation.EventDecide {
			decided[ev.ConfirmationID] = ev.Outcome
		}
	}
	for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		before, after := ld.room.PendingFor(side), c.next.PendingFor(side)
		if before != nil && (after == nil || after.ID != before.ID) {
			status, why := negotiation.ResultVoid, ""
			switch {
			case decided[before.ID] != "":
				status = decided[before.ID]
				if status == negotiation.ResultVoid {
					why = c.voidWhy
				}
			case after != nil:
				why = "replaced by a newer request"
			case c.next.State.Terminal():
				why = "the room is " + string(c.next.State)
			default:
				why = "the terms on the table changed"
			}
			settleConfirmation(writes, ld.row.ID, before.ID, status, why, now)
		}
		if after != nil && (before == nil || before.ID != after.ID) {
			insertConfirmation(writes, ld.row.ID, after)
		}
	}
}

// scheduleClose inserts a new room's close job, at the room's first due
// moment (its invitation's expiry, or its deadline if that comes first).
// Run before then, or once somebody joined, it waits for the next due
// moment (CloseDue).
func (s *Rooms) scheduleClose(ctx context.Context, tx pgx.Tx, row *roomRow, r *negotiation.Room) error {
	at, ok := r.DueAt()
	if !ok {
		return nil
	}
	res, err := s.river.InsertTx(ctx, tx, jobs.CloseDueArgs{RoomID: row.ID, At: at}, nil)
	if err != nil {
		return fmt.Errorf("schedule the room's close: %w", err)
	}
	row.CloseJobID = &res.Job.ID
	return nil
}

// cancelMootJobs cancels the close job once the room is final.
func (s *Rooms) cancelMootJobs(ctx context.Context, tx pgx.Tx, ld *loaded, next *negotiation.Room) error {
	id := ld.row.CloseJobID
	if !next.State.Terminal() || id == nil {
		return nil
	}
	// A job River deleted already (finished long ago) needs no cancel.
	if _, err := s.river.JobCancelTx(ctx, tx, *id); err != nil && !errors.Is(err, rivertype.ErrNotFound) {
		return fmt.Errorf("cancel job %d: %w", *id, err)
	}
	ld.row.CloseJobID = nil
	return nil
}

// CloseDue closes a room whose invitation expired or whose deadline passed.
// A room that is not due is left as it is, so the job is safe to run late
// or twice; wait is how long until a live room is due (the job comes back
// then), zero for a final or deleted room.
func (s *Rooms) CloseDue(ctx context.Context, roomID int64) (wait time.Duration, err error) {
	err = s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.load(ctx, tx, roomID, true)
		if err != nil {
			if ErrorCodeOf(err) == ErrNotFound {
				return nil
			}
			return err
		}
		now := s.now()
		next, ev, err := ld.room.CloseDue(now)
		if err != nil { // not due
			if at, ok := ld.room.DueAt(); ok {
				wait = at.Sub(now)
			}
			return nil
		}
		return s.commit(ctx, tx, ld, change{next: next, events: []negotiation.Event{ev}})
	})
	return wait, err
}

var _ jobs.RoomCloser = (*Rooms)(nil)
