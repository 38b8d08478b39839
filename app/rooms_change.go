package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	segjson "github.com/segmentio/encoding/json"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// loaded is a locked room: its row and the protocol's view of it.
type loaded struct {
	row  *roomRow
	room *negotiation.Room
	// sealed: a side's limits did not open with this installation's
	// SECRET_KEY (it started over with a new one, docs/operations.md) and
	// the room was restored without them (restoreLax). Only what needs no
	// limits may be done with it: a cancel, closing it.
	sealed bool
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

// loadLax is load with restoreLax: a sealed room is restored without the
// limits that do not open.
func (s *Rooms) loadLax(ctx context.Context, q querier, roomID int64, lock bool) (*loaded, error) {
	row, err := selectRoom(ctx, q, roomID, lock)
	if err != nil {
		return nil, err
	}
	return s.restoreLax(row, "")
}

// restore rebuilds the protocol's room from its row, with both sides' limits.
func (s *Rooms) restore(row *roomRow) (*loaded, error) { return s.restoreFor(row, "") }

// restoreFor is restore with only side's limits ("": both). A request of
// one side never needs the other side's: no decision for a mover and
// nothing shown to it reads them (docs/security.md, promise 3). Leaving
// them out also keeps their size from showing in how long the answer
// takes. A room whose limits do not open with this key is refused
// (sealedRefusal).
func (s *Rooms) restoreFor(row *roomRow, only negotiation.Side) (*loaded, error) {
	ld, err := s.restoreLax(row, only)
	if err != nil {
		return nil, err
	}
	if ld.sealed {
		return nil, sealedRefusal(row.ID)
	}
	return ld, nil
}

// restoreLax is restoreFor that restores a room whose limits (of the sides
// asked for) do not open with this key without them, marked sealed, and
// logs that once per room and process. Its callers do only what needs no
// limits with such a room.
func (s *Rooms) restoreLax(row *roomRow, only negotiation.Side) (*loaded, error) {
	limits, sealed, err := s.partyLimits(row, only)
	if err != nil {
		return nil, err
	}
	if sealed != nil {
		if _, logged := s.sealedLogged.LoadOrStore(row.ID, true); !logged {
			s.log.Warn("room sealed under another SECRET_KEY: its limits do not open, it can only be cancelled or closed",
				"room", row.ID, "err", sealed)
		}
	}
	room, err := s.restoreSnapshot(row.Snapshot, limits)
	if err != nil {
		return nil, fmt.Errorf("room %d: %w", row.ID, err)
	}
	return &loaded{row: row, room: room, sealed: sealed != nil}, nil
}

// sealedRefusal is the answer, at every door, for a room whose private
// limits were sealed with a SECRET_KEY this installation no longer has.
func sealedRefusal(roomID int64) *Error {
	return refuse(ErrConflict, "so15_error.room_sealed",
		"Room %d can no longer be read or moved: its private limits were sealed with a key this installation no longer has (it started over with a new SECRET_KEY). It can only be cancelled (the agent asks with negotiation_cancel, its human confirms) or left to close at its deadline.", roomID)
}

// refuseSealed refuses what a sealed room cannot do: anything but a cancel.
func refuseSealed(ld *loaded, verdict negotiation.Verdict) error {
	if ld.sealed && verdict != negotiation.VerdictCancel {
		return sealedRefusal(ld.row.ID)
	}
	return nil
}

// restoreSnapshot rebuilds a room from its snapshot, its schemas from the
// cache, decoding with segmentio's drop-in for encoding/json (less than
// half the time: BenchmarkRestoreSnapshot).
func (s *Rooms) restoreSnapshot(snapshot string, limits [2][]byte) (*negotiation.Room, error) {
	return negotiation.RestoreWith(s.schemas, segjson.Unmarshal, []byte(snapshot), limits)
}

// partyLimits opens both parties' limits (only's, when given). A side's
// limits sealed under another SECRET_KEY (errUnsealable) are left out and
// reported as sealed, the first of them; the others are still opened.
func (s *Rooms) partyLimits(row *roomRow, only negotiation.Side) (limits [2][]byte, sealed, err error) {
	for i, p := range row.Parties {
		if p == nil || only != "" && p.Side != only || p.erased() {
			continue
		}
		l, err := s.openLimits(row.ID, string(p.Side), p.LimitsEnc)
		if errors.Is(err, errUnsealable) {
			sealed = cmp.Or(sealed, err)
			continue
		} else if err != nil {
			return limits, nil, err
		}
		limits[i] = l
	}
	return limits, sealed, nil
}

// change is what a use case decided: the room after it, the events to log,
// and why a confirmation came out void, if one did.
type change struct {
	next        *negotiation.Room
	events      []negotiation.Event
	fingerprint []byte // of the agent's move, for retries
	voidWhy     string
	answered    answeredBy         // how the human's answer of a decide came
	queue       []func(*pgx.Batch) // more writes for the change's batch, before the room's (a new party's row)
	folded      []foldedWrite      // more writes, folded into the room's UPDATE (an answer's audit entry, a schema seen; the jobs' lines join them)
}

// answeredBy is how a human's answer came: through which door, by which
// user (nil: a person without an account). A receipt names them.
type answeredBy struct {
	channel receipt.Channel
	user    *int64
}

// commit writes a decided change in the caller's transaction: the events,
// the confirmations' fate (a new one with its first reminder's moment),
// the notification and webhook jobs the change causes, the room, and the
// receipt of a room it agrees. The room's own
// writes go in one round trip, after the jobs (nothing the jobs insert
// refers to them). Nothing is scheduled for the room's due moment: the
// sweep finds it (CloseDue).
func (s *Rooms) commit(ctx context.Context, tx *roomTx, ld *loaded, c change) error {
	now := s.clock(ld.row)
	var writes pgx.Batch
	// Everything rides on the room's statement, but a confirmation settled
	// where a new one of the same side takes its place: that goes first,
	// in a statement of its own (confirmations_one_pending).
	first, folded := s.syncConfirmations(ld, c, now)
	if len(first) > 0 {
		queueWith(&writes, first[1:], first[0].sql, first[0].args...)
	}
	for i := range c.events {
		w, logged, err := eventWrite(ld.row, &c.events[i], c.fingerprint)
		if err != nil {
			return err
		}
		ld.row.log = append(ld.row.log, logged)
		folded = append(folded, w)
	}
	folded = append(folded, c.folded...)
	if err := s.fanOut(ctx, tx, &folded, ld, c); err != nil {
		return err
	}
	if err := s.fanOutHooks(ctx, tx, &folded, ld, c, now); err != nil {
		return err
	}
	for _, q := range c.queue {
		q(&writes)
	}
	ld.row.Snapshot = string(c.next.Snapshot())
	updateRoom(&writes, ld.row, c.next, now, folded)
	if err := tx.sendWrites(ctx, &writes); err != nil {
		return fmt.Errorf("write room %d: %w", ld.row.ID, err)
	}
	if !ld.room.State.Terminal() && c.next.State == negotiation.StateAgreed && s.receipts != nil {
		if err := s.issueReceipt(ctx, tx, ld.row); err != nil {
			return err
		}
	}
	ld.room = c.next
	tx.changed = append(tx.changed, ld.row.ID)
	return nil
}

// syncConfirmations records new pending confirmations and settles the ones
// the change ended: decided by the human, replaced, or voided by the room
// moving on. A settle that a new pending confirmation of the same side
// replaces is in first, to be written before it; the other writes can go
// in any order.
func (s *Rooms) syncConfirmations(ld *loaded, c change, now time.Time) (first, writes []foldedWrite) {
	decided := map[string]negotiation.Result{}
	for _, ev := range c.events {
		if ev.Kind == negotiation.EventDecide {
			decided[ev.ConfirmationID] = ev.Outcome
		}
	}
	for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		before, after := ld.room.PendingFor(side), c.next.PendingFor(side)
		replaced := after != nil && (before == nil || before.ID != after.ID)
		if before != nil && (after == nil || after.ID != before.ID) {
			status, why, by := negotiation.ResultVoid, "", answeredBy{}
			switch {
			case decided[before.ID] != "":
				status, by = decided[before.ID], c.answered
				if status == negotiation.ResultVoid {
					why = c.voidWhy
				}
			case after != nil:
				why = voidReplaced
			case c.next.State == negotiation.StateAgreed:
				why = voidRoomAgreed
			case c.next.State.Terminal():
				why = voidRoomClosed
			default:
				why = voidTermsChanged
			}
			settle := settleConfirmation(ld.row.ID, before.ID, status, why, by, now)
			if replaced {
				first = append(first, settle)
			} else {
				writes = append(writes, settle)
			}
		}
		if replaced {
			writes = append(writes, insertConfirmation(ld.row.ID, after, firstReminder(ld.row.party(side), after, c.next.Deadline)))
		}
	}
	return first, writes
}

// Why a confirmation came out void, stored in English: each is the
// English text of a catalog key, which the dashboard finds by the text to
// show it in the reader's language (locale.Printer.Reason;
// TestVoidReasonsAreCatalogTexts).
var voidReasons = map[string]string{ // key → English
	"void.replaced":      voidReplaced,
	"void.room_agreed":   voidRoomAgreed,
	"void.room_closed":   voidRoomClosed,
	"rule.terms_changed": voidTermsChanged,
}

const (
	voidReplaced     = "replaced by a newer request"
	voidRoomAgreed   = "the room is agreed"
	voidRoomClosed   = "the room is closed"
	voidTermsChanged = "the terms on the table changed"
)

// firstReminder is the moment a new confirmation of party p is first
// reminded of (negotiation.Reminders), nil when it gets no reminder: none
// fits before the deadline, or nobody's account holds the party (a person
// answering in the browser has no channel to remind them on).
func firstReminder(p *partyRow, c *negotiation.Confirmation, deadline time.Time) *time.Time {
	if p == nil || p.OwnerUserID == nil {
		return nil
	}
	at, ok := negotiation.FirstReminder(c.RequestedAt, deadline)
	if !ok {
		return nil
	}
	return &at
}
