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
		asked, evReq, err := r.Request(side, a.Verdict, a.Hash, id, at)
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
