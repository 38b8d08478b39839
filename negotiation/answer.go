package negotiation

import (
	"encoding/json"
	"time"
)

// Answer is a human's own answer, made with no agent between them and the
// room (a person in the browser): the move and their confirmation of it are
// one tap.
type Answer struct {
	Verdict Verdict         // approve, reject, cancel, counter (offer: the same); VerdictJoin
	Hash    SubjectHash     // approve: the subject_hash of the terms the human saw
	Terms   json.RawMessage // counter: terms in the side's schema
}

// VerdictJoin is a person's answer to an invitation that only takes the
// seat, to wait for terms (AnswerInvitation). It is no move of the protocol.
const VerdictJoin Verdict = "join"

// Answer plays a human's own answer for side. A counter is proposed (an
// offer when nothing is on the table); approve, reject and cancel are a
// request answered yes at once, so both events are logged as an agent's
// request and its human's answer would be. An answer that would come out
// void is refused with why.
func (r *Room) Answer(side Side, a Answer, id string, at time.Time) (*Room, []Event, error) {
	switch a.Verdict {
	case VerdictJoin:
		return nil, nil, inputErr("answer", "rule.joined_already", "you have joined already")
	case VerdictCounter, VerdictOffer:
		v := VerdictCounter
		if r.Table == nil {
			v = VerdictOffer
		}
		n, ev, err := r.Propose(side, Move{Verdict: v, Subject: a.Terms}, at)
		if err != nil {
			return nil, nil, err
		}
		return n, []Event{ev}, nil
	case VerdictApprove, VerdictReject, VerdictCancel:
		asked, evReq, err := r.Request(side, a.Verdict, a.Hash, id, at, Announced) // the human answers themselves
		if err != nil {
			return nil, nil, err
		}
		n, evDec, why, err := asked.Decide(side, id, asked.PendingFor(side).SubjectHash, true, at)
		if err != nil {
			return nil, nil, err
		}
		if evDec.Outcome != ResultApplied {
			// why, with its words: the refusal the answer came out void by.
			e := &Error{Code: CodeRefused, Message: why}
			if void := asked.stillValid(asked.PendingFor(side), at); void != nil {
				e.Words = void.Words
			}
			return nil, nil, e
		}
		return n, []Event{evReq, evDec}, nil
	}
	return nil, nil, inputErr("answer", "rule.answer_verdict", "must be approve, counter, reject or cancel (got %q)", string(a.Verdict))
}

// Repeats says whether a is the move side made last in r, whose log is
// events: the same answer sent again (a double click, a request the
// browser retried), which a door answers as it answered the first instead
// of refusing it as a new move (not their turn, the room ended). A counter
// repeats when the log ends with side's proposal of the same terms;
// approve, reject and cancel when it ends with side's request of the same
// verdict (and, for approve, the same terms) and its decision, applied.
// Anything after it (the other side's move, a close) makes it a stale
// answer, refused as such.
func (r *Room) Repeats(events []Event, side Side, a Answer) bool {
	n := len(events)
	switch a.Verdict {
	case VerdictCounter, VerdictOffer:
		if n == 0 || r.Table == nil || r.Table.By != side || r.Table.AsOptions {
			return false
		}
		last := events[n-1]
		if last.Kind != EventPropose || last.Side != side || (last.Verdict != VerdictCounter && last.Verdict != VerdictOffer) {
			return false
		}
		terms, err := r.parseOwnTerms(side, Move{Verdict: last.Verdict, Subject: a.Terms})
		return err == nil && sameTerms(r.Table.Options, terms)
	case VerdictApprove, VerdictReject, VerdictCancel:
		if n < 2 {
			return false
		}
		req, dec := events[n-2], events[n-1]
		return req.Kind == EventRequest && req.Side == side && req.Verdict == a.Verdict &&
			(a.Verdict != VerdictApprove || req.Hash == a.Hash) &&
			dec.Kind == EventDecide && dec.Side == side && dec.ConfirmationID == req.ConfirmationID && dec.Accept && dec.Outcome == ResultApplied
	}
	return false
}

// RepeatedRequest is side's last request of the kind verdict is (an
// approve or reject, answered with negotiation_respond; a cancel, with
// negotiation_cancel) when it asked the same (verdict, and the hash): an
// agent's call sent again, which the room refuses now (not their turn, the
// room moved on or ended) and a door answers with the confirmation that
// request made. False when side made no request of that kind, or its last
// one asked something else. A preapproval is of no kind: no agent asks it.
func RepeatedRequest(events []Event, side Side, verdict Verdict, hash SubjectHash) (Event, bool) {
	kind := requestKind(verdict)
	for i := len(events) - 1; i >= 0 && kind != ""; i-- {
		ev := events[i]
		if ev.Kind == EventRequest && ev.Side == side && requestKind(ev.Verdict) == kind {
			return ev, ev.Verdict == verdict && ev.Hash == hash
		}
	}
	return Event{}, false
}

// requestKind groups the verdicts one tool requests ("" for a preapproval).
func requestKind(v Verdict) Verdict {
	switch v {
	case VerdictApprove, VerdictReject:
		return VerdictApprove
	case VerdictCancel:
		return VerdictCancel
	}
	return ""
}

// AnswerInvitation seats a person as side b, with the inviter's schema and
// no limits, and plays their answer (VerdictJoin: none). The join comes
// first: an invitation that cannot be answered is refused as a join is.
func (r *Room) AnswerInvitation(a Answer, id string, at time.Time) (*Room, []Event, error) {
	joined, evJoin, err := r.Join(r.Party(SideA).Schema.Declared(), nil, at)
	if err != nil {
		return nil, nil, err
	}
	if a.Verdict == VerdictJoin {
		return joined, []Event{evJoin}, nil
	}
	n, events, err := joined.Answer(SideB, a, id, at)
	if err != nil {
		return nil, nil, err
	}
	return n, append([]Event{evJoin}, events...), nil
}

// AsksToConfirm says whether the room asks side's human, who answers with
// no agent between them (Answer), to confirm terms now: their turn in a
// live room, with the other side's terms on the table, or their own once
// the other side approved them.
func (r *Room) AsksToConfirm(side Side) bool {
	return !r.State.Terminal() && r.Turn == side && r.Table != nil && (r.Table.By != side || r.Approval(side.Other()) != "")
}

// TurnMove is the verdict of the other side's last move among events that
// passed the turn to side: an offer, a counter, a request for detail, or
// an approval its human released ("" for none).
func TurnMove(events []Event, side Side) Verdict {
	for i := len(events) - 1; i >= 0; i-- {
		ev := &events[i]
		if ev.Side != side.Other() {
			continue
		}
		switch {
		case ev.Kind == EventPropose:
			return ev.Verdict
		case ev.Kind == EventDecide && ev.Verdict == VerdictApprove && ev.Outcome == ResultApplied:
			return VerdictApprove
		}
	}
	return ""
}
