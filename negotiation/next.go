package negotiation

import (
	"strings"
	"time"
)

// Next is what a side may do now: the verdicts, one plain sentence, and,
// when the side has to wait for something (the other side, a human, the
// cool-down), when to look again.
type Next struct {
	Verdicts []Verdict `json:"verdicts"`
	Say      string    `json:"say"`
	// CheckAfter is set when the side waits: the moment worth reading the
	// room again (Advise). Nil when the side can act now, or never again.
	CheckAfter *time.Time `json:"check_after,omitempty"`
}

// Waiting reports whether the side has to wait for something that is not
// its own move.
func (n Next) Waiting() bool { return n.CheckAfter != nil }

// Next tells a side what it may do in the room now (the protocol alone:
// Pace.Advise adds the service's cool-down and when to look again).
func (r *Room) Next(side Side) Next { return r.next(side, func(Verdict) bool { return true }) }

// next is Next with only the verdicts of a live room that allow keeps (a
// cool-down holds counter back, the round cap every tabling move); the
// sentence then never names one it left out.
func (r *Room) next(side Side, allow func(Verdict) bool) Next {
	switch r.State {
	case StateAgreed:
		return Next{Verdicts: []Verdict{}, Say: "Agreed: both humans approved the same terms. Read with receipt: true for the signed receipt."}
	case StateClosed:
		return Next{Verdicts: []Verdict{}, Say: "The room is closed (" + string(r.ClosedReason) + "). Nothing more to do."}
	}
	var n Next
	if r.State == StateDraft {
		n = r.draft(side)
		if p := r.PendingFor(side); p != nil {
			// The preapproval or the cancel waits for the human too.
			n.Say += " " + waitingSay(p)
		}
	} else {
		n = r.live(side, allow)
	}
	if a := r.Answered[side.index()]; a != nil {
		n.Say = answeredSay(a) + " " + n.Say
	}
	if len(r.NoDeal) > 0 {
		// First the way things stand, then what the protocol still allows.
		n.Say = r.noDealSay() + " " + n.Say
	}
	return n
}

// waitingSay tells an agent that its human is asked to confirm p, and who
// tells them: Taasky's message, or, when none was sent (Unannounced), the
// agent.
func waitingSay(p *Confirmation) string {
	say := "Waiting for your human to confirm (" + string(p.Verdict) + "). "
	if p.Unannounced {
		return say + "Taasky sent them no message about it (their notification settings send none): tell them to open Taasky to confirm."
	}
	return say + notifiedSay
}

// notifiedSay ends waitingSay when Taasky's message told the human.
const notifiedSay = "Do not ask them again; they were notified."

// Undelivered says what of a side's mail never arrived, for its next
// (Next.Undelivered): the service learns it from the mail server, after
// the move that sent it.
type Undelivered struct {
	// Invitation: the invitation emailed to the address the side gave
	// (invite_email) was refused for good; Address is that address, ""
	// when it is no longer known.
	Invitation bool
	// InvitationRetrying: that email has not gone out yet; the service
	// keeps trying (the mail server did not take it).
	InvitationRetrying bool
	Address            string
	// Request: the email asking the side's human to confirm its pending
	// confirmation was refused for good.
	Request bool
	// RequestRetrying: that email has not gone out yet; the service keeps
	// trying (the mail server did not take it).
	RequestRetrying bool
}

// notifiedInstead is say with what said in place of "they were notified"
// (notifiedSay), or before it when say does not say that.
func notifiedInstead(say, what string) string {
	if strings.Contains(say, notifiedSay) {
		return strings.Replace(say, notifiedSay, what, 1)
	}
	return what + " " + say
}

// Undelivered is n told of u: the invitation's refusal leads (nobody was
// invited, so no join will come), as its delay does (no join may come
// before it goes), and the request's replaces "they were notified" (they
// were not, by email).
func (n Next) Undelivered(u Undelivered) Next {
	if u.RequestRetrying {
		n.Say = notifiedInstead(n.Say, "Taasky's email asking them has not gone out yet (the mail server did not take it; Taasky keeps trying): "+
			"if it cannot wait, tell them yourself to answer on Taasky's dashboard, where the request waits.")
	}
	if u.Request {
		n.Say = notifiedInstead(n.Say, "Taasky's email asking them could not be delivered (the mail server refused it for good): "+
			"tell them yourself to answer on Taasky's dashboard, where the request waits.")
	}
	to := "the address given as invite_email"
	if u.Address != "" {
		to = u.Address
	}
	if u.InvitationRetrying {
		n.Say = "Taasky's email inviting " + to + " has not gone out yet (the mail server did not take it; Taasky keeps trying), so they may not know of the invitation. " +
			"If it cannot wait, give that person the invite_url yourself. " + n.Say
	}
	if u.Invitation {
		n.Say = "Taasky's email inviting " + to + " could not be delivered (the mail server refused it for good), so nobody was invited yet. " +
			"Ask your human for the right address and give that person the invite_url yourself, or cancel and open again with the right invite_email. " + n.Say
	}
	return n
}

// answeredSay tells an agent what became of its last request to its human,
// when that moved nothing.
func answeredSay(a *HumanAnswer) string {
	what := asked(a.Verdict, a.Hash)
	if a.Result == ResultVoid {
		return "Your human's answer to the request to " + what + " came too late and applied to nothing (" + a.Why + ")."
	}
	return "Your human declined to " + what + ": do not ask them again for the same without something new."
}

// asked is what an agent asked its human to confirm, in words: "approve
// the terms sha256:…", "reject the terms on the table".
func asked(v Verdict, h SubjectHash) string {
	switch v {
	case VerdictApprove:
		return "approve the terms " + string(h)
	case VerdictReject:
		return "reject the terms on the table (closing the room)"
	case VerdictCancel:
		return "cancel the negotiation"
	case VerdictPreapprove:
		return "accept any of the opening options"
	}
	what := string(v)
	if h != "" {
		what += " " + string(h)
	}
	return what
}

// draft is next before the other side joined.
func (r *Room) draft(side Side) Next {
	if side != SideA {
		return Next{Verdicts: []Verdict{}, Say: "Waiting for the invitation to be answered."}
	}
	if r.Round == 0 {
		return Next{Verdicts: []Verdict{VerdictOffer, VerdictCancel},
			Say: "Waiting for the other side to join. You may table opening terms now (offer), or cancel the invitation."}
	}
	return Next{Verdicts: []Verdict{VerdictCancel}, Say: "Your opening terms wait for the other side to join. You may cancel the invitation."}
}

// live is next in an awaiting room.
func (r *Room) live(side Side, allow func(Verdict) bool) Next {
	if !r.canCounter(side) {
		outer := allow
		allow = func(v Verdict) bool { return v != VerdictCounter && outer(v) }
	}
	keep := func(vs ...Verdict) []Verdict {
		out := vs[:0:0]
		for _, v := range vs {
			if allow(v) {
				out = append(out, v)
			}
		}
		return out
	}
	if p := r.PendingFor(side); p != nil {
		say := waitingSay(p)
		if h := r.Approval(side.Other()); h != "" && p.Verdict == VerdictPreapprove {
			// The option they chose is what the preapproval, confirmed,
			// agrees on (an approve asked names its hash already).
			say = "The other side approved " + string(h) + ": your human's preapproval, once confirmed, agrees it. " + say
		}
		if r.Turn == side && r.Table == nil {
			return Next{Verdicts: keep(VerdictOffer, VerdictCancel), Say: say}
		}
		if r.Turn == side {
			// A new request replaces the pending one (DESIGN §2): another
			// answer, or another option's hash, may still be asked.
			return Next{Verdicts: keep(VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel),
				Say: say + " A new request replaces it."}
		}
		return Next{Verdicts: []Verdict{VerdictCancel}, Say: say}
	}
	if r.Turn != side {
		return Next{Verdicts: []Verdict{VerdictCancel}, Say: "It is the other side's turn: wait for their move."}
	}
	if r.Table == nil {
		return Next{Verdicts: []Verdict{VerdictOffer, VerdictCancel}, Say: "Your turn: offer terms."}
	}
	vs := keep(VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel)
	if h := r.Approval(side.Other()); h != "" {
		say := "The other side approved " + string(h) + ". Approve the same subject_hash to agree"
		if allow(VerdictCounter) {
			say += ", or counter"
		}
		return Next{Verdicts: vs, Say: say + "."}
	}
	if h := r.Approval(side); h != "" {
		// The other side answered this side's standing approval with a
		// question (need_more_detail): asking the human to approve the same
		// terms again would only pass the turn back.
		say := "Your human's approval of " + string(h) + " stands; the other side asked for more detail instead of approving. Answer them: "
		if allow(VerdictCounter) {
			say += "counter with the detail they asked for, "
		}
		if allow(VerdictNeedMoreDetail) {
			say += "ask for more detail, "
		}
		return Next{Verdicts: vs, Say: say + "reject or cancel; approving again changes nothing."}
	}
	say := "Your turn: approve the terms on the table (quote their subject_hash), "
	if allow(VerdictCounter) {
		say += "counter, "
	}
	if allow(VerdictNeedMoreDetail) {
		say += "ask for more detail, "
	}
	return Next{Verdicts: vs, Say: say + "or reject."}
}

// canCounter says whether side has terms to counter the table with: not
// when its own limits leave it one choice of terms (Limits.onlyOne) and
// those are the terms on the table, which a counter may not table again.
// Decided from the limits; the terms are read only in that rare case.
func (r *Room) canCounter(side Side) bool {
	p := r.Party(side)
	if r.Table == nil || len(r.Table.Options) != 1 || p.Schema == nil || !p.Limits.onlyOne(p.Schema) {
		return true
	}
	terms, err := r.parseOwnTerms(side, Move{Verdict: VerdictCounter, Subject: r.Table.Options[0].Canonical()})
	return err != nil || !sameTerms(r.Table.Options, terms)
}

// noDealSay is the sentence that leads every next of a live room in which
// the two sides' limits cannot overlap on some fields. When every such
// field may be left out (optional in either side's schema: terms without
// it are not held to limits on it), a deal without them is still
// possible, and the sentence says so rather than "any terms".
func (r *Room) noDealSay() string {
	fields := strings.Join(r.NoDeal, ", ")
	for _, name := range r.NoDeal {
		if !r.optionalInEither(name) {
			return "No deal is possible on " + fields +
				": your human's limits and the other side's cannot overlap there, so any terms break one side's limits." +
				" The ways out: cancel, or ask your human whether they would move their limits (limits are fixed in a room, so that means cancelling and opening a new one)."
		}
	}
	it := "it is optional, so terms that leave it out"
	if len(r.NoDeal) > 1 {
		it = "they are optional, so terms that leave them out"
	}
	return "No deal is possible on " + fields + " with a value: your human's limits and the other side's cannot overlap there;" +
		" " + it + " can still agree. The other way out: cancel (limits are fixed in a room, so moving them means cancelling and opening a new one)."
}

// optionalInEither reports whether either side's schema lets its terms
// leave out the field name.
func (r *Room) optionalInEither(name string) bool {
	for _, p := range r.Parties {
		if p.Schema == nil {
			continue
		}
		if f, ok := p.Schema.Field(name); ok && f.Optional {
			return true
		}
	}
	return false
}
