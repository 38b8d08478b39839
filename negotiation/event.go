package negotiation

import (
	"encoding/json"
	"fmt"
	"time"
)

// EventKind names an entry of a room's append-only log.
type EventKind string

const (
	EventOpen    EventKind = "open"    // a opens the room (schema, deadline)
	EventJoin    EventKind = "join"    // b joins (schema)
	EventPropose EventKind = "propose" // offer, counter or need_more_detail
	EventRequest EventKind = "request" // a move waits for a human: approve, reject, cancel, preapprove
	EventDecide  EventKind = "decide"  // the human's answer to a request
	EventClose   EventKind = "close"   // the room expired or lapsed, or a side's account was deleted
)

// Event is one entry of a room's log. Replaying a room's events from the
// first gives the room; limits are kept out of events (they are secret and
// stored encrypted apart) and passed to Replay.
type Event struct {
	Kind EventKind `json:"kind"`
	Side Side      `json:"side,omitempty"`
	At   time.Time `json:"at"`

	Schema         json.RawMessage   `json:"schema,omitempty"`          // open, join: canonical
	Slots          bool              `json:"slots,omitempty"`           // open
	Preapprove     bool              `json:"preapprove,omitempty"`      // open
	Deadline       *time.Time        `json:"deadline,omitempty"`        // open
	Title          *string           `json:"title,omitempty"`           // open: the inviter's words ("" none; nil in logs from before 2026-12-03)
	Verdict        Verdict           `json:"verdict,omitempty"`         // propose, request
	Terms          []json.RawMessage `json:"terms,omitempty"`           // propose: canonical terms, one or the options
	AsOptions      bool              `json:"as_options,omitempty"`      // propose
	Fields         []string          `json:"fields,omitempty"`          // propose need_more_detail
	Hash           SubjectHash       `json:"subject_hash,omitempty"`    // request approve
	ConfirmationID string            `json:"confirmation_id,omitempty"` // request, decide
	Unannounced    bool              `json:"unannounced,omitempty"`     // request: no message told the human
	Accept         bool              `json:"accept,omitempty"`          // decide
	Outcome        Result            `json:"outcome,omitempty"`         // decide: what the answer did (derived)
	Reason         ClosedReason      `json:"reason,omitempty"`          // close
}

// Replay rebuilds a room from its log. limits are each side's declared
// limits (raw), as Open and Join received them.
func Replay(events []Event, limits [2][]byte) (*Room, error) {
	if len(events) == 0 || events[0].Kind != EventOpen {
		return nil, fmt.Errorf("replay: the log does not start with an open")
	}
	var r *Room
	for i := range events {
		ev := &events[i]
		var err error
		var got Event
		switch ev.Kind {
		case EventOpen:
			if r != nil {
				return nil, fmt.Errorf("replay: event %d: a second open", i)
			}
			r, err = openRoom(ev.Schema, limits[0], ev.Slots, ev.Preapprove, ev.Deadline, ev.At)
		case EventJoin:
			r, got, err = r.Join(ev.Schema, limits[1], ev.At)
		case EventPropose:
			r, got, err = r.replayPropose(ev)
		case EventRequest:
			r, got, err = r.request(ev.Side, ev.Verdict, ev.Hash, ev.ConfirmationID, ev.At, announcementOf(ev))
		case EventDecide:
			// A decide logs the hash of the confirmation it answered: the
			// one its human saw.
			r, got, _, err = r.Decide(ev.Side, ev.ConfirmationID, ev.Hash, ev.Accept, ev.At)
			if err == nil && got.Outcome != ev.Outcome {
				err = fmt.Errorf("outcome %s, logged %s", got.Outcome, ev.Outcome)
			}
		case EventClose:
			if ev.Reason == ClosedAccountDeleted {
				r, got, err = r.CloseAccountDeleted(ev.At)
			} else {
				r, got, err = r.CloseDue(ev.At)
			}
			if err == nil && got.Reason != ev.Reason {
				err = fmt.Errorf("closed %s, logged %s", got.Reason, ev.Reason)
			}
		default:
			err = fmt.Errorf("unknown event kind %q", ev.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("replay: event %d (%s): %w", i, ev.Kind, err)
		}
	}
	return r, nil
}

func (r *Room) replayPropose(ev *Event) (*Room, Event, error) {
	if err := r.checkPropose(ev.Side, ev.Verdict, ev.At); err != nil {
		return nil, Event{}, err
	}
	var terms []*Terms
	for _, raw := range ev.Terms {
		t, err := r.Party(ev.Side).Schema.ParseTerms(raw)
		if err != nil {
			return nil, Event{}, err
		}
		terms = append(terms, t)
	}
	return r.propose(ev.Side, ev.Verdict, terms, ev.AsOptions, ev.Fields, ev.At)
}

// announcementOf is the Announcement a logged request recorded.
func announcementOf(ev *Event) Announcement {
	if ev.Unannounced {
		return Unannounced
	}
	return Announced
}
