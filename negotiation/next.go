package negotiation

// Next is what a side may do now: the verdicts and one plain sentence.
type Next struct {
	Verdicts []Verdict `json:"verdicts"`
	Say      string    `json:"say"`
}

// Next tells a side what it may do in the room now.
func (r *Room) Next(side Side) Next {
	switch r.State {
	case StateAgreed:
		return Next{Verdicts: []Verdict{}, Say: "Agreed: both humans approved the same terms. Nothing more to do."}
	case StateClosed:
		return Next{Verdicts: []Verdict{}, Say: "The room is closed (" + string(r.ClosedReason) + "). Nothing more to do."}
	case StateDraft:
		if side != SideA {
			return Next{Verdicts: []Verdict{}, Say: "Waiting for the invitation to be answered."}
		}
		if r.Round == 0 {
			return Next{Verdicts: []Verdict{VerdictOffer, VerdictCancel},
				Say: "Waiting for the other side to join. You may table opening terms now (offer), or cancel the invitation."}
		}
		return Next{Verdicts: []Verdict{VerdictCancel}, Say: "Your opening terms wait for the other side to join. You may cancel the invitation."}
	}
	if p := r.PendingFor(side); p != nil {
		say := "Waiting for your human to confirm (" + string(p.Verdict) + "). Do not ask them again; they were notified."
		if r.Turn == side && r.Table == nil {
			return Next{Verdicts: []Verdict{VerdictOffer, VerdictCancel}, Say: say}
		}
		if r.Turn == side {
			return Next{Verdicts: []Verdict{VerdictCounter, VerdictNeedMoreDetail, VerdictCancel}, Say: say}
		}
		return Next{Verdicts: []Verdict{VerdictCancel}, Say: say}
	}
	if r.Turn != side {
		return Next{Verdicts: []Verdict{VerdictCancel}, Say: "It is the other side's turn. Wait, and read the room again later."}
	}
	if r.Table == nil {
		return Next{Verdicts: []Verdict{VerdictOffer, VerdictCancel}, Say: "Your turn: offer terms."}
	}
	if h := r.Approval(side.Other()); h != "" {
		return Next{Verdicts: []Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel},
			Say: "The other side approved " + string(h) + ". Approve the same subject_hash to agree, or counter."}
	}
	return Next{Verdicts: []Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel},
		Say: "Your turn: approve the terms on the table (quote their subject_hash), counter, ask for more detail, or reject."}
}
