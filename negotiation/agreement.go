package negotiation

import (
	"encoding/json"
	"time"
)

// Agreement is what an agreed room agreed on, read from its log: the terms
// both humans approved and, per side, the confirmation that approved them
// (the receipt's facts, with who answered it and how, which the store
// keeps).
type Agreement struct {
	Hash  SubjectHash
	Terms json.RawMessage // canonical
	// Confirmations are side a's and side b's: the last confirmation each
	// side's human applied before the room was agreed (an approve, or a's
	// preapproval of any option).
	Confirmations [2]AgreedConfirmation
}

// AgreedConfirmation is one side's human approving the agreed terms.
type AgreedConfirmation struct {
	ID      string
	Verdict Verdict // approve or preapprove
	At      time.Time
}

// Agreement returns what the room agreed on, given its log; false when the
// room is not agreed.
func (r *Room) Agreement(events []Event) (*Agreement, bool) {
	if r.State != StateAgreed || r.Table == nil {
		return nil, false
	}
	terms, ok := r.Table.Find(r.Approvals[0])
	if !ok {
		return nil, false
	}
	a := &Agreement{Hash: terms.Hash(), Terms: terms.Canonical()}
	for _, ev := range events {
		if ev.Kind == EventDecide && ev.Outcome == ResultApplied && (ev.Verdict == VerdictApprove || ev.Verdict == VerdictPreapprove) {
			a.Confirmations[ev.Side.index()] = AgreedConfirmation{ID: ev.ConfirmationID, Verdict: ev.Verdict, At: ev.At}
		}
	}
	return a, true
}
