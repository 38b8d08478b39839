package negotiation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Move is an agent's move that needs no human: offer, counter or
// need_more_detail.
type Move struct {
	Verdict Verdict
	Subject json.RawMessage   // one set of terms
	Options []json.RawMessage // or 2–10 alternatives; non-nil is given (an empty list too)
	Fields  []string          // need_more_detail: the fields it needs detail on
}

// checkTurn applies the draft rules of protocol 0.2.0 and the turn.
func (r *Room) checkTurn(side Side, v Verdict, at time.Time) error {
	if err := r.checkLive(at); err != nil {
		return err
	}
	if r.State == StateDraft {
		switch {
		case side != SideA:
			return refused("rule.draft_initiator_only", "only the initiator moves in a draft")
		case v == VerdictCancel || v == VerdictPreapprove:
			return nil
		case r.Round > 0:
			return refused("rule.draft_cancel_only", "nothing but cancel until the peer joins")
		case v != VerdictOffer:
			return refused("rule.draft_offer_only", "only an offer or cancel in a draft")
		}
		return nil
	}
	if v == VerdictCancel || v == VerdictPreapprove {
		return nil
	}
	if r.Turn != side {
		return refused("rule.not_your_turn", "not your turn")
	}
	return nil
}

// Propose plays an offer, counter or need_more_detail. Own terms are
// validated against the mover's schema and limits before they are tabled.
func (r *Room) Propose(side Side, m Move, at time.Time) (*Room, Event, error) {
	switch m.Verdict {
	case VerdictOffer, VerdictCounter, VerdictNeedMoreDetail:
	case VerdictApprove, VerdictReject, VerdictCancel:
		return nil, Event{}, inputErr("", "rule.verdict_for_human", "%s is released by your human: request a confirmation instead", string(m.Verdict))
	default:
		return nil, Event{}, inputErr("", "rule.verdict_move", "verdict must be offer, counter or need_more_detail")
	}
	if err := r.checkPropose(side, m.Verdict, at); err != nil {
		return nil, Event{}, err
	}
	var terms []*Terms
	if m.Verdict == VerdictNeedMoreDetail {
		if len(m.Subject) > 0 || m.Options != nil {
			return nil, Event{}, inputErr("", "rule.detail_no_terms", "need_more_detail carries no terms; name the fields instead")
		}
	} else {
		var err error
		if terms, err = r.parseOwnTerms(side, m); err != nil {
			return nil, Event{}, err
		}
		// A counter is different terms (seed 001): the same ones would only
		// void the approvals. (Checked on moves, not on replay: a log keeps
		// what was played.)
		if m.Verdict == VerdictCounter && sameTerms(r.Table.Options, terms) {
			place := "subject"
			if m.Options != nil {
				place = "options"
			}
			return nil, Event{}, inputErr(place, "rule.counter_same", "the same terms as on the table; to accept them, approve their subject_hash with negotiation_respond")
		}
	}
	return r.propose(side, m.Verdict, terms, len(m.Options) > 0, m.Fields, at)
}

// sameTerms says whether a and b hold the same terms, in any order.
func sameTerms(a, b []*Terms) bool {
	if len(a) != len(b) {
		return false
	}
	for _, t := range b {
		if !slices.ContainsFunc(a, func(o *Terms) bool { return o.Hash() == t.Hash() }) {
			return false
		}
	}
	return true
}

func (r *Room) checkPropose(side Side, v Verdict, at time.Time) error {
	if err := r.checkTurn(side, v, at); err != nil {
		return err
	}
	switch {
	case v == VerdictOffer && r.Table != nil:
		return refused("rule.counter_instead", "terms are on the table already; counter them instead")
	case v == VerdictCounter && r.Table == nil:
		return refused("rule.nothing_to_counter", "nothing to counter yet")
	case v == VerdictNeedMoreDetail && r.Table == nil:
		return refused("rule.nothing_to_ask", "nothing to ask about yet")
	}
	return nil
}

func (r *Room) parseOwnTerms(side Side, m Move) ([]*Terms, error) {
	p := r.Party(side)
	switch {
	case len(m.Subject) > 0 && m.Options != nil:
		return nil, inputErr("", "rule.subject_or_options", "pass subject or options, not both")
	case len(m.Subject) > 0:
		t, err := p.Schema.ParseTerms(m.Subject)
		if err == nil {
			err = p.Limits.CheckOwn(t)
		}
		if e, ok := err.(*Error); ok {
			return nil, withFaults(e, p.Schema, p.Limits, m.Subject, "")
		} else if err != nil {
			return nil, err
		}
		return []*Terms{t}, nil
	case m.Options == nil: // given, even empty ([]): its count is refused below
		return nil, inputErr("", "rule.needs_terms", "%s needs terms: subject or options", string(m.Verdict))
	case len(m.Options) < MinOptions || len(m.Options) > MaxOptions:
		return nil, inputErr("options", "rule.options_count", "%d to %d alternatives", MinOptions, MaxOptions)
	}
	out := make([]*Terms, len(m.Options))
	var first *Error
	for i, raw := range m.Options {
		t, err := p.Schema.ParseTerms(raw)
		if err == nil {
			err = p.Limits.CheckOwn(t)
		}
		if e, ok := err.(*Error); ok {
			// Every option's faults in one refusal, the first option's
			// first fault its message.
			at := fmt.Sprintf("options[%d]", i)
			faults := withFaults(errf(e.Code, e.Message), p.Schema, p.Limits, raw, at).Faults
			if first == nil {
				first = e.within(at)
			}
			first.Faults = append(first.Faults, faults...)
			continue
		}
		if first != nil {
			continue
		}
		for j := range i {
			if out[j].Hash() == t.Hash() {
				return nil, inputErr(fmt.Sprintf("options[%d]", i), "rule.options_same", "the same terms as options[%d]", j)
			}
		}
		out[i] = t
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

// askableFields are the fields side may ask more detail on: its schema's,
// then those only the other side's has (either schema, whoever tabled
// the terms).
func (r *Room) askableFields(side Side) []string {
	out := r.Party(side).Schema.names()
	for _, name := range r.Party(side.Other()).Schema.names() {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// propose applies a checked move. Replay enters here with the logged terms.
func (r *Room) propose(side Side, v Verdict, terms []*Terms, asOptions bool, fields []string, at time.Time) (*Room, Event, error) {
	if err := r.checkPropose(side, v, at); err != nil {
		return nil, Event{}, err
	}
	if v == VerdictNeedMoreDetail {
		for i, f := range fields {
			_, mine := r.Party(side).Schema.Field(f)
			_, theirs := r.Party(side.Other()).Schema.Field(f)
			if !mine && !theirs {
				return nil, Event{}, inputErr("fields", "rule.unknown_detail_field", "unknown field: %s (the fields are %s)",
					Clip(f), strings.Join(r.askableFields(side), ", "))
			}
			if slices.Contains(fields[:i], f) {
				return nil, Event{}, inputErr("fields", "rule.listed_twice", "%s is listed twice", f)
			}
		}
	} else if len(fields) > 0 {
		return nil, Event{}, inputErr("", "rule.fields_detail_only", "fields go with need_more_detail only")
	}
	n := r.clone()
	n.Round++
	n.Answered = [2]*HumanAnswer{} // the room moved on
	ev := Event{Kind: EventPropose, Side: side, At: at, Verdict: v, Fields: fields}
	if v != VerdictNeedMoreDetail {
		n.Table = &Table{By: side, Round: n.Round, Options: terms, AsOptions: asOptions}
		n.Approvals = [2]SubjectHash{}
		if v == VerdictCounter {
			n.Preapprove, n.Preapproved = false, false
		}
		n.voidTermsConfirmations()
		ev.AsOptions = asOptions
		for _, t := range terms {
			ev.Terms = append(ev.Terms, t.Canonical())
		}
	}
	if n.State == StateDraft {
		n.Turn = "" // the peer's, who is not here yet
	} else {
		n.Turn = side.Other()
	}
	return n, ev, nil
}

// voidTermsConfirmations drops the confirmations bound to the old table; a
// pending cancel stands.
func (r *Room) voidTermsConfirmations() {
	for i, c := range r.Pending {
		if c != nil && c.Verdict != VerdictCancel {
			r.Pending[i] = nil
		}
	}
}

// CheckRequestVerdict says whether an agent may ask its human for v:
// approve, reject or cancel. A preapproval is never an agent's move: Open
// asks it of the initiator's human (RequestPreapproval).
func CheckRequestVerdict(v Verdict) error {
	switch v {
	case VerdictApprove, VerdictReject, VerdictCancel:
		return nil
	}
	return inputErr("", "rule.verdict_confirm", "verdict must be approve or reject")
}

// Request records an agent's move that waits for the party's human:
// approve (quoting the subject_hash of terms on the table), reject or
// cancel. It is refused now if the move would be; a new request replaces
// the party's pending one. a is whether a message asks the human (the
// service's fact: their settings), which next tells the agent.
func (r *Room) Request(side Side, v Verdict, hash SubjectHash, id string, at time.Time, a Announcement) (*Room, Event, error) {
	if err := CheckRequestVerdict(v); err != nil {
		return nil, Event{}, err
	}
	return r.request(side, v, hash, id, at, a)
}

// RequestPreapproval asks the initiator's human to confirm, once, that any
// of the opening options is fine (Open does, when asked to). Only side a,
// in a room opened with preapprove, while a's options are on the table.
func (r *Room) RequestPreapproval(side Side, id string, at time.Time, a Announcement) (*Room, Event, error) {
	return r.request(side, VerdictPreapprove, "", id, at, a)
}

// request records any confirmation; Replay enters here with the logged
// requests.
func (r *Room) request(side Side, v Verdict, hash SubjectHash, id string, at time.Time, a Announcement) (*Room, Event, error) {
	if err := r.checkConfirmable(side, v, hash, at); err != nil {
		return nil, Event{}, err
	}
	if id == "" {
		return nil, Event{}, inputErr("", "rule.confirmation_id", "a confirmation needs an id")
	}
	c := &Confirmation{ID: id, Side: side, Verdict: v, RequestedAt: at, Unannounced: a == Unannounced}
	if v == VerdictApprove {
		c.SubjectHash = hash
	}
	if (v == VerdictApprove || v == VerdictReject) && r.Table != nil {
		c.TableRound = r.Table.Round
	}
	n := r.clone()
	n.Pending[side.index()] = c
	n.Answered[side.index()] = nil // asked again
	return n, Event{Kind: EventRequest, Side: side, At: at, Verdict: v, Hash: c.SubjectHash, ConfirmationID: id, Unannounced: c.Unannounced}, nil
}

func (r *Room) checkConfirmable(side Side, v Verdict, hash SubjectHash, at time.Time) error {
	switch v {
	case VerdictApprove, VerdictReject, VerdictCancel, VerdictPreapprove:
	default:
		return inputErr("", "rule.verdict_confirm", "verdict must be approve or reject")
	}
	if err := r.checkTurn(side, v, at); err != nil {
		return err
	}
	switch v {
	case VerdictApprove:
		if r.Table == nil {
			return refused("rule.no_terms", "no terms on the table")
		}
		if _, ok := r.Table.Find(hash); !ok {
			return refused("rule.hash_mismatch", "subject_hash does not match the terms on the table")
		}
	case VerdictReject:
		if r.Table == nil {
			return refused("rule.no_terms", "no terms on the table")
		}
	case VerdictPreapprove:
		if side != SideA || !r.Preapprove || r.Table == nil || r.Table.By != SideA || !r.Table.AsOptions {
			return refused("rule.nothing_to_preapprove", "nothing to preapprove")
		}
	}
	return nil
}

// Result is what a human's answer did.
type Result string

const (
	ResultApplied  Result = "applied"  // the move was made
	ResultDeclined Result = "declined" // the human said no; the room is unchanged
	ResultVoid     Result = "void"     // the room moved on; the answer applies to nothing
)

// Decide applies a human's answer to their party's pending confirmation.
// hashSeen is the subject_hash the human was shown ("" for a confirmation
// that quotes none): an answer binds to it, and one for other terms than
// the pending confirmation's is refused, accepted or declined. The move
// applies only if the room is still as it was when asked (for an approval,
// the same terms on the table); otherwise the confirmation comes out void,
// and why is the one-line reason.
func (r *Room) Decide(side Side, id string, hashSeen SubjectHash, accept bool, at time.Time) (n *Room, ev Event, why string, err error) {
	c := r.PendingFor(side)
	if c == nil || c.ID != id {
		return nil, Event{}, "", refused("rule.not_pending", "this confirmation is no longer pending")
	}
	if c.SubjectHash != hashSeen {
		return nil, Event{}, "", refused("rule.answer_other_terms", "subject_hash: the answer is for other terms than the ones waiting for it")
	}
	n = r.clone()
	n.Pending[side.index()] = nil
	ev = Event{Kind: EventDecide, Side: side, At: at, ConfirmationID: id, Accept: accept, Outcome: ResultDeclined,
		Verdict: c.Verdict, Hash: c.SubjectHash}
	if !accept {
		n.Answered[side.index()] = &HumanAnswer{Verdict: c.Verdict, Hash: c.SubjectHash, Result: ResultDeclined}
		return n, ev, "", nil
	}
	if e := r.stillValid(c, at); e != nil {
		ev.Outcome = ResultVoid
		n.Answered[side.index()] = &HumanAnswer{Verdict: c.Verdict, Hash: c.SubjectHash, Result: ResultVoid, Why: e.Message}
		return n, ev, e.Message, nil
	}
	ev.Outcome = ResultApplied
	n.Answered[side.index()] = nil
	n.apply(c)
	return n, ev, "", nil
}

// stillValid says why a confirmation no longer applies (nil if it does).
func (r *Room) stillValid(c *Confirmation, at time.Time) *Error {
	if err := r.checkConfirmable(c.Side, c.Verdict, c.SubjectHash, at); err != nil {
		if e, ok := err.(*Error); ok {
			return e
		}
		return refused("", "%s", err.Error())
	}
	if (c.Verdict == VerdictApprove || c.Verdict == VerdictReject) && r.Table.Round != c.TableRound {
		return refused("rule.terms_changed", "the terms on the table changed")
	}
	return nil
}

// apply makes a confirmed move on n (a fresh clone).
func (n *Room) apply(c *Confirmation) {
	switch c.Verdict {
	case VerdictReject:
		n.close(ClosedRejected)
	case VerdictCancel:
		if n.State == StateDraft {
			n.close(ClosedWithdrawn)
		} else {
			n.close(ClosedCancelled)
		}
	case VerdictPreapprove:
		n.Preapproved = true
		if h := n.Approval(SideB); h != "" {
			n.Approvals[0] = h
		}
	case VerdictApprove:
		t, _ := n.Table.Find(c.SubjectHash)
		if len(n.Table.Options) > 1 {
			narrowed := *n.Table
			narrowed.Options = []*Terms{t}
			n.Table = &narrowed
			// An approval of another option no longer stands.
			for i, h := range n.Approvals {
				if h != c.SubjectHash {
					n.Approvals[i] = ""
				}
			}
		}
		n.Approvals[c.Side.index()] = c.SubjectHash
		if c.Side == SideB && n.Preapproved && n.Table.By == SideA {
			n.Approvals[0] = c.SubjectHash
		}
		n.Turn = c.Side.Other()
	}
	if n.State == StateAwaiting && n.Approvals[0] != "" && n.Approvals[0] == n.Approvals[1] {
		n.State, n.Turn = StateAgreed, ""
		n.Pending = [2]*Confirmation{}
	}
}

// CloseDue closes a room whose invitation expired or whose deadline passed.
// It is refused for a room that is not due, so a late or repeated job
// changes nothing.
func (r *Room) CloseDue(at time.Time) (*Room, Event, error) {
	reason, due := r.Due(at)
	if !due {
		if r.State.Terminal() {
			return nil, Event{}, roomIs(r.State)
		}
		return nil, Event{}, refused("rule.not_due", "room is not due to close")
	}
	n := r.clone()
	n.close(reason)
	return n, Event{Kind: EventClose, At: at, Reason: reason}, nil
}

// CloseAccountDeleted closes an open room (a draft or a live one) because
// the account of one side is being deleted: nobody is left to answer for
// it. An agreed or closed room is refused and stays whole, for the other
// side keeps its copy.
func (r *Room) CloseAccountDeleted(at time.Time) (*Room, Event, error) {
	if r.State.Terminal() {
		return nil, Event{}, roomIs(r.State)
	}
	n := r.clone()
	n.close(ClosedAccountDeleted)
	return n, Event{Kind: EventClose, At: at, Reason: ClosedAccountDeleted}, nil
}
