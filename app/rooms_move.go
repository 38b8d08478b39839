package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// seat is a located, locked room and the caller's side in it.
type seat struct {
	*loaded
	side negotiation.Side
}

// withSeat runs fn in a transaction on the room the agent's token opens,
// locked. A token of another account, or of a seat of another human of
// the account, finds nothing.
func (s *Rooms) withSeat(ctx context.Context, agent Agent, roomToken string, fn func(tx *roomTx, st seat) error) error {
	return s.withSeatFor(ctx, agent, roomToken, "", fn)
}

// withSeatFor is withSeat for a call of verdict: a cancel is let into a
// room sealed under another key (refuseSealed), restored without the
// limits that do not open.
func (s *Rooms) withSeatFor(ctx context.Context, agent Agent, roomToken string, verdict negotiation.Verdict, fn func(tx *roomTx, st seat) error) error {
	if roomToken == "" {
		return Errorf(ErrInvalid, "room_token: required")
	}
	return s.inTx(ctx, func(tx *roomTx) error {
		row, side, err := selectSeat(ctx, tx, s.seatHashOf(roomToken), agent.AccountID, agent.OwnerUserID, true)
		if err != nil {
			return err
		}
		ld, err := s.restoreLax(row, side)
		if err != nil {
			return err
		}
		if err := refuseSealed(ld, verdict); err != nil {
			return err
		}
		return fn(tx, seat{ld, side})
	})
}

// fingerprintOf identifies an agent's move, so that the same move sent
// again is recognised as a retry.
func fingerprintOf(kind negotiation.EventKind, side negotiation.Side, parts ...any) []byte {
	b, _ := json.Marshal(append([]any{kind, side}, parts...))
	h := sha256.Sum256(b)
	return h[:]
}

// MoveInput is an agent's negotiation_propose.
type MoveInput struct {
	Verdict negotiation.Verdict
	Subject json.RawMessage
	Options []json.RawMessage
	Fields  []string
}

// Propose plays an offer, counter or need_more_detail for the agent's side.
// The same move sent again right after is answered with the room as it is.
func (s *Rooms) Propose(ctx context.Context, agent Agent, roomToken string, in MoveInput) (*View, error) {
	var view *View
	err := s.withSeat(ctx, agent, roomToken, func(tx *roomTx, st seat) error {
		next, ev, err := st.room.Propose(st.side, negotiation.Move{Verdict: in.Verdict, Subject: in.Subject, Options: in.Options, Fields: in.Fields}, s.clock(st.row))
		fp := fingerprintOf(negotiation.EventPropose, st.side, ev.Verdict, ev.Terms, ev.Fields)
		if err != nil {
			// A retry of a move made is refused by the room it made ("not
			// your turn", "terms are on the table already"): answer it
			// with its result, the room as it is, instead. Only a refused
			// move is looked up, so a legal one is always played.
			if retry, rerr := s.retriedPropose(ctx, tx, st, in); rerr != nil || retry {
				if rerr != nil {
					return rerr
				}
				view, err = s.view(ctx, tx, st.loaded, st.side)
				return err
			}
			return fromProtocol(err)
		}
		if err := s.checkPace(ctx, tx, st, in.Verdict, ev.At); err != nil {
			return err
		}
		if err := s.commit(ctx, tx, st.loaded, change{next: next, events: []negotiation.Event{ev}, fingerprint: fp}); err != nil {
			return err
		}
		view, err = s.view(ctx, tx, st.loaded, st.side)
		return err
	})
	return view, err
}

// checkPace refuses a move the service's pace does not allow (a round cap,
// a cool-down between the side's counters). It runs after the protocol
// accepted the move, so a retried move is still answered, not refused.
func (s *Rooms) checkPace(ctx context.Context, tx pgx.Tx, st seat, v negotiation.Verdict, at time.Time) error {
	if s.pace == (negotiation.Pace{}) {
		return nil
	}
	var last time.Time
	if v == negotiation.VerdictCounter && s.pace.Cooldown > 0 {
		log, err := s.logCache.decode(st.row)
		if err != nil {
			return err
		}
		last = negotiation.LastTabled(events(log), st.side)
	}
	return fromProtocol(s.pace.Check(st.room, st.side, v, last, at))
}

// retriedPropose reports whether in repeats the side's latest tabling or
// need_more_detail move, wherever it is in the log: the terms are
// validated against the side's schema to compare their canonical forms,
// as the fingerprint was made.
func (s *Rooms) retriedPropose(ctx context.Context, tx pgx.Tx, st seat, in MoveInput) (bool, error) {
	schema := st.room.Party(st.side).Schema
	if schema == nil {
		return false, nil
	}
	var terms []json.RawMessage
	raws := in.Options
	if len(in.Subject) > 0 {
		raws = []json.RawMessage{in.Subject}
	}
	for _, raw := range raws {
		t, err := schema.ParseTerms(raw)
		if err != nil {
			return false, nil
		}
		terms = append(terms, t.Canonical())
	}
	last, err := lastFingerprint(ctx, tx, st.row.ID, st.side, negotiation.EventPropose)
	if err != nil || last == nil {
		return false, err
	}
	return bytes.Equal(last, fingerprintOf(negotiation.EventPropose, st.side, in.Verdict, terms, in.Fields)), nil
}

// retriedRequest is the confirmation the side's last request of the same
// tool made, as it stands now, when that request was this one
// (negotiation.RepeatedRequest); nil otherwise.
func (s *Rooms) retriedRequest(ctx context.Context, tx pgx.Tx, st seat, verdict negotiation.Verdict, hash negotiation.SubjectHash) (*ConfirmationView, error) {
	log, err := s.logCache.decode(st.row)
	if err != nil {
		return nil, err
	}
	e, ok := negotiation.RepeatedRequest(events(log), st.side, verdict, hash)
	if !ok {
		return nil, nil
	}
	cv := &ConfirmationView{ID: e.ConfirmationID, Verdict: e.Verdict, SubjectHash: e.Hash,
		RequestedAt: e.At.UTC().Format(timeLayout), NotNotified: e.Unannounced}
	settled, err := selectSettledConfirmation(ctx, tx, st.row.ID, st.side, e.ConfirmationID)
	if err != nil {
		return nil, err
	}
	if settled != nil && settled.Status != "pending" {
		cv.Outcome, cv.Why = negotiation.Result(settled.Status), settled.Why
	}
	return cv, nil
}

// ConfirmationView is a confirmation as its party sees it.
type ConfirmationView struct {
	ID          string                  `json:"id"`
	Verdict     negotiation.Verdict     `json:"verdict"`
	SubjectHash negotiation.SubjectHash `json:"subject_hash,omitempty"`
	RequestedAt string                  `json:"requested_at"`
	// NotNotified: no email or push asked the human (their notification
	// settings send none); they see it only by opening Taasky.
	NotNotified bool `json:"not_notified,omitempty"`
	// Outcome is what the human's answer did (or void: the room moved on
	// before it), once the confirmation is settled; absent while it
	// waits. Only a retried request meets a settled one.
	Outcome negotiation.Result `json:"outcome,omitempty"`
	Why     string             `json:"why,omitempty"` // why it came out void
}

func confirmationView(c *negotiation.Confirmation) *ConfirmationView {
	if c == nil {
		return nil
	}
	return &ConfirmationView{ID: c.ID, Verdict: c.Verdict, SubjectHash: c.SubjectHash, RequestedAt: c.RequestedAt.UTC().Format(timeLayout),
		NotNotified: c.Unannounced}
}

// RequestConfirmation is negotiation_respond and negotiation_cancel: the
// move waits for the side's human. The same request while it is pending is
// answered with the pending confirmation; a refused request that repeats
// the side's last one of its tool is answered with the confirmation that
// one made, as it stands now (retriedRequest).
func (s *Rooms) RequestConfirmation(ctx context.Context, agent Agent, roomToken string, verdict negotiation.Verdict, hash negotiation.SubjectHash) (*ConfirmationView, *View, error) {
	if err := negotiation.CheckRequestVerdict(verdict); err != nil {
		return nil, nil, fromProtocol(err)
	}
	var cv *ConfirmationView
	var view *View
	err := s.withSeatFor(ctx, agent, roomToken, verdict, func(tx *roomTx, st seat) error {
		if p := st.room.PendingFor(st.side); p != nil && p.Verdict == verdict && p.SubjectHash == hash {
			cv = confirmationView(p)
			var err error
			view, err = s.view(ctx, tx, st.loaded, st.side)
			return err
		}
		next, ev, err := st.room.Request(st.side, verdict, hash, newConfirmationID(), s.clock(st.row), st.row.announcement(st.side))
		if err != nil {
			retry, rerr := s.retriedRequest(ctx, tx, st, verdict, hash)
			if rerr != nil {
				return rerr
			}
			if retry == nil {
				return fromProtocol(err)
			}
			cv = retry
			view, err = s.view(ctx, tx, st.loaded, st.side)
			return err
		}
		if err := s.commit(ctx, tx, st.loaded, change{next: next, events: []negotiation.Event{ev}}); err != nil {
			return err
		}
		cv = confirmationView(next.PendingFor(st.side))
		view, err = s.view(ctx, tx, st.loaded, st.side)
		return err
	})
	return cv, view, err
}

// Decision is a human's answer and what it did.
type Decision struct {
	Result negotiation.Result
	Why    string // why it came out void
	State  negotiation.State
	// OneTap is what the link shows after the answer (DecideOneTap only).
	OneTap *OneTap
}

// DecideAsOwner applies the answer of the human who owns a party (the owner
// of the agent that sits there) to one of its confirmations. hashSeen is the
// subject_hash the human was shown: an answer is bound to it.
func (s *Rooms) DecideAsOwner(ctx context.Context, userID, roomID int64, confirmationID string, hashSeen negotiation.SubjectHash, accept bool) (*Decision, error) {
	var d *Decision
	err := s.inTx(ctx, func(tx *roomTx) error {
		ld, err := s.loadLax(ctx, tx, roomID, true) // decide refuses what a sealed room cannot do
		if err != nil {
			return err
		}
		side, ok, err := ownedSide(ctx, tx, ld, userID, confirmationID)
		if err != nil {
			return err
		}
		if !ok {
			return refuse(ErrNotFound, "error.confirmation_not_found", "confirmation not found")
		}
		if p := ld.room.PendingFor(side); p == nil || p.ID != confirmationID {
			if d, err = answeredAgain(ctx, tx, ld, confirmationID, hashSeen, accept, userID); err != nil || d != nil {
				return err
			}
		}
		d, err = s.decide(ctx, tx, ld, side, confirmationID, hashSeen, accept, answeredBy{receipt.ChannelDashboard, &userID}, userID)
		return err
	})
	return d, err
}

// answeredAgain is the decision a human's answer on the dashboard made,
// when they send the same answer to the same confirmation there again (a
// double click, two tabs, a POST the browser sent again): it is answered
// as the first was, and changes nothing. Any other answer of theirs to a
// confirmation they answered (another answer, or one after their one-tap
// link's) is refused as that: they answered it already. Nil when
// userID's answer did not settle the confirmation: the answer is then
// refused as it is.
func answeredAgain(ctx context.Context, q querier, ld *loaded, id string, hashSeen negotiation.SubjectHash, accept bool, userID int64) (*Decision, error) {
	a, err := selectConfirmationAnswer(ctx, q, ld.row.ID, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	if a.by.user == nil || *a.by.user != userID || a.status == "pending" {
		return nil, nil
	}
	if a.by.channel != receipt.ChannelDashboard || a.hash != hashSeen || accept != (a.status != negotiation.ResultDeclined) {
		return nil, refuse(ErrConflict, "error.answered_already", "you answered this already")
	}
	return &Decision{Result: a.status, Why: a.why, State: ld.room.State}, nil
}

// decide applies a human's answer for side, bound to the hash they saw, and
// logs it in the side's account's audit log as actorID's (0: nobody known).
// Once they confirm terms, their account has seen the other side's schema.
// Both go in the change's batch.
func (s *Rooms) decide(ctx context.Context, tx *roomTx, ld *loaded, side negotiation.Side, confirmationID string, hashSeen negotiation.SubjectHash, accept bool, by answeredBy, actorID int64) (*Decision, error) {
	if ld.sealed {
		// Only a pending cancel is answered in a room sealed under
		// another key: it needs no limits.
		var verdict negotiation.Verdict
		if p := ld.room.PendingFor(side); p != nil && p.ID == confirmationID {
			verdict = p.Verdict
		}
		if err := refuseSealed(ld, verdict); err != nil {
			return nil, err
		}
	}
	if p := ld.row.party(side); by.user != nil && p != nil && p.OwnerUserID == nil {
		if answersTheOtherSide(ld.row, side, *by.user) {
			return nil, errBothSides
		}
		if answered, err := answeredTheOtherSide(ctx, tx, ld.row, side, *by.user); err != nil {
			return nil, err
		} else if answered {
			return nil, errAnsweredOtherSide
		}
	}
	now := s.clock(ld.row)
	next, ev, why, err := ld.room.Decide(side, confirmationID, hashSeen, accept, now)
	if err != nil {
		return nil, fromProtocol(err)
	}
	c := change{next: next, events: []negotiation.Event{ev}, voidWhy: why, answered: by}
	if p := ld.row.party(side); p != nil && p.AccountID != nil {
		acct := *p.AccountID
		c.folded = append(c.folded, auditWrite(acct, actorID, AuditConfirmationAnswer, &now, map[string]string{
			"room": fmt.Sprint(ld.row.ID), "side": string(side), "confirmation": confirmationID, "result": string(ev.Outcome)}))
		if theirs := next.Party(side.Other()).Schema; theirs != nil && ev.Outcome == negotiation.ResultApplied {
			c.folded = append(c.folded, schemaSeenWrite(acct, string(theirs.Fingerprint()), now))
			if h := ld.row.human; h != nil && h.side == side {
				h.seen = true // the human's context read with the room follows
			}
		}
	}
	if err := s.commit(ctx, tx, ld, c); err != nil {
		return nil, err
	}
	return &Decision{Result: ev.Outcome, Why: why, State: next.State}, nil
}
