package negotiation

import (
	"time"
)

// Side is one of the two parties of a room.
type Side string

const (
	SideA Side = "a" // the initiator, who opened the room
	SideB Side = "b" // the peer, who joined it
)

// Other is the other side.
func (s Side) Other() Side {
	if s == SideA {
		return SideB
	}
	return SideA
}

func (s Side) index() int {
	if s == SideB {
		return 1
	}
	return 0
}

// State is where a room stands.
type State string

const (
	// StateDraft: opened by a, b has not joined. a may table an opening
	// offer (once) or cancel. Leaves for awaiting at the join, or closed
	// (withdrawn, expired, lapsed).
	StateDraft State = "draft"
	// StateAwaiting: both parties are in; the side whose turn it is moves.
	// Leaves for agreed when both humans approved one subject_hash, or
	// closed (rejected, cancelled, lapsed).
	StateAwaiting State = "awaiting"
	// StateAgreed: final. Both humans approved the same terms.
	StateAgreed State = "agreed"
	// StateClosed: final, with a ClosedReason.
	StateClosed State = "closed"
)

// Terminal reports whether a room in this state accepts no further moves.
func (s State) Terminal() bool { return s == StateAgreed || s == StateClosed }

// ClosedReason says why a room closed.
type ClosedReason string

const (
	ClosedRejected  ClosedReason = "rejected"  // a human rejected the terms on the table
	ClosedCancelled ClosedReason = "cancelled" // a human cancelled after the join
	ClosedWithdrawn ClosedReason = "withdrawn" // the initiator's human cancelled the invitation
	ClosedExpired   ClosedReason = "expired"   // nobody joined within InvitationTTL
	ClosedLapsed    ClosedReason = "lapsed"    // the deadline passed unagreed
	// ClosedAccountDeleted: one side's account was deleted while the room
	// was open (CloseAccountDeleted).
	ClosedAccountDeleted ClosedReason = "account_deleted"
)

// Verdict is a move's kind.
type Verdict string

const (
	VerdictOffer          Verdict = "offer"            // opening terms, while none are on the table
	VerdictCounter        Verdict = "counter"          // replaces the terms on the table; voids approvals
	VerdictNeedMoreDetail Verdict = "need_more_detail" // passes the turn, keeps the terms
	VerdictApprove        Verdict = "approve"          // human: accepts one subject_hash
	VerdictReject         Verdict = "reject"           // human: closes the room
	VerdictCancel         Verdict = "cancel"           // human: closes the room, out of turn too
	// VerdictPreapprove is the initiator's human confirming, once, that any
	// of the opening options is fine. It is never an agent's move: Request
	// refuses it, and Open asks for it (RequestPreapproval).
	VerdictPreapprove Verdict = "preapprove"
)

// Times the protocol fixes.
const (
	InvitationTTL   = 72 * time.Hour
	DefaultDeadline = 14 * 24 * time.Hour
	MaxDeadline     = 90 * 24 * time.Hour
	MinOptions      = 2
	MaxOptions      = 10
)

// Party is one side's declaration: its schema and private limits.
type Party struct {
	Schema *Schema
	Limits *Limits
}

// Table is the terms on the table: one set of terms, or 2 to 10 options.
// An approve of one option narrows the table to it. Never mutated: a move
// that changes the table puts a new one.
type Table struct {
	By        Side
	Round     int // the round that tabled it
	Options   []*Terms
	AsOptions bool
}

// Find returns the option with the given hash.
func (t *Table) Find(h SubjectHash) (*Terms, bool) {
	for _, o := range t.Options {
		if o.Hash() == h {
			return o, true
		}
	}
	return nil, false
}

// Hashes lists the subject_hash of every option on the table.
func (t *Table) Hashes() []SubjectHash {
	out := make([]SubjectHash, len(t.Options))
	for i, o := range t.Options {
		out[i] = o.Hash()
	}
	return out
}

// Confirmation is a move waiting for a party's human: approve, reject,
// cancel or preapprove. Immutable.
type Confirmation struct {
	ID          string      `json:"id"`
	Side        Side        `json:"side"`
	Verdict     Verdict     `json:"verdict"`
	SubjectHash SubjectHash `json:"subject_hash,omitempty"` // approve: the terms approved
	TableRound  int         `json:"table_round,omitempty"`  // approve, reject: the table it answers
	RequestedAt time.Time   `json:"requested_at"`
	// Unannounced: no message told the human of it (Unannounced).
	Unannounced bool `json:"unannounced,omitempty"`
}

// Announcement is whether Taasky sends a request's human a message about
// it. The service knows (their notification settings and devices); the
// protocol records it with the request and tells the agent, whose human
// otherwise learns of the request only by opening Taasky.
type Announcement uint8

const (
	Announced   Announcement = iota // an email or a push asks them
	Unannounced                     // their settings send none: only Taasky's pages show it
)

// Room is the whole negotiation state the protocol decides on. Every
// method that changes it returns a new Room and leaves the receiver as it
// was, so a refused move changes nothing.
type Room struct {
	State        State
	ClosedReason ClosedReason
	Round        int
	Turn         Side // "" when nobody may move
	Parties      [2]Party
	Table        *Table
	Approvals    [2]SubjectHash
	Slots        bool // opened with slots: the peer may join with the inviter's schema
	Preapprove   bool // the initiator asked to confirm all opening options at once
	Preapproved  bool // its human did: it counts as a's approval of the option b picks
	Pending      [2]*Confirmation
	// Answered is each side's last human answer that moved nothing (a
	// decline, or an answer that came too late), until the side asks again
	// or the room moves: its agent is told in next (DESIGN §2).
	Answered [2]*HumanAnswer
	NoDeal   []string
	// NoDealWithheld are the fields of NoDeal, as its join computed it,
	// that the rule between two accounts withheld (WithheldNoDeal): kept
	// in the stored room only, for the consistency check; never shown.
	NoDealWithheld []string
	OpenedAt       time.Time
	ExpiresAt      time.Time // the invitation's end, if nobody joined
	Deadline       time.Time
}

// Party returns a side's declaration.
func (r *Room) Party(s Side) Party { return r.Parties[s.index()] }

// Approval returns a side's current approval ("" for none).
func (r *Room) Approval(s Side) SubjectHash { return r.Approvals[s.index()] }

// HumanAnswer is a human's answer that moved nothing: what they were asked,
// and whether they declined or their answer came out void (and why).
type HumanAnswer struct {
	Verdict Verdict     `json:"verdict"`
	Hash    SubjectHash `json:"subject_hash,omitempty"`
	Result  Result      `json:"result"`
	Why     string      `json:"why,omitempty"`
}

// PendingFor returns the side's confirmation waiting for its human.
func (r *Room) PendingFor(s Side) *Confirmation { return r.Pending[s.index()] }

func (r *Room) clone() *Room { c := *r; return &c }

// Due says whether the room must close at `at`, and why: an invitation
// nobody answered expires; a live room whose deadline passed lapses.
func (r *Room) Due(at time.Time) (ClosedReason, bool) {
	switch r.State {
	case StateDraft:
		if !at.Before(r.ExpiresAt) && r.ExpiresAt.Before(r.Deadline) {
			return ClosedExpired, true
		}
		if !at.Before(r.Deadline) {
			return ClosedLapsed, true
		}
	case StateAwaiting:
		if !at.Before(r.Deadline) {
			return ClosedLapsed, true
		}
	}
	return "", false
}

// DueAt is the first moment the room is due to close (Due) if nothing else
// happens: the invitation's expiry while nobody joined (or the deadline,
// if that comes first), the deadline after; false for a final room.
func (r *Room) DueAt() (time.Time, bool) {
	switch r.State {
	case StateDraft:
		if r.ExpiresAt.Before(r.Deadline) {
			return r.ExpiresAt, true
		}
		return r.Deadline, true
	case StateAwaiting:
		return r.Deadline, true
	}
	return time.Time{}, false
}

// roomIs refuses anything in a room that is no longer open to it.
func roomIs(s State) *Error {
	switch s {
	case StateDraft:
		return refused("rule.room_draft", "room is draft")
	case StateAwaiting:
		return refused("rule.room_awaiting", "room is awaiting")
	case StateAgreed:
		return refused("rule.room_agreed", "room is agreed")
	case StateClosed:
		return refused("rule.room_closed", "room is closed")
	}
	return refused("", "room is %s", string(s))
}

// checkLive refuses anything in a finished or overdue room.
func (r *Room) checkLive(at time.Time) error {
	if r.State.Terminal() {
		return roomIs(r.State)
	}
	if reason, due := r.Due(at); due {
		if reason == ClosedExpired {
			return refused("rule.invitation_expired", "the invitation has expired")
		}
		return refused("rule.deadline_passed", "the deadline has passed")
	}
	return nil
}

func (r *Room) close(reason ClosedReason) {
	r.State, r.ClosedReason, r.Turn = StateClosed, reason, ""
	r.Pending = [2]*Confirmation{}
}
