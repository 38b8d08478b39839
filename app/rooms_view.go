package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/taasky/taasky/negotiation"
)

const timeLayout = time.RFC3339

// View is a room as one side sees it: never the other side's limits, only
// the flags and notes the protocol derives from them.
type View struct {
	RoomID       int64                    `json:"-"`
	Side         negotiation.Side         `json:"-"`
	State        negotiation.State        `json:"state"`
	ClosedReason negotiation.ClosedReason `json:"closed_reason,omitempty"`
	Round        int                      `json:"round"`
	Turn         *string                  `json:"turn,omitempty"` // "you" or "them"; nil: nobody's (draft, agreed, closed)
	Deadline     string                   `json:"deadline"`
	// InvitationExpiresAt is, while nobody joined (a draft), when the room
	// closes as expired if nobody joins by then: 72 hours after the open,
	// or the deadline if that comes first (negotiation.Room.InvitationEnd);
	// "" otherwise. The agents' copy of it: the deadline alone told them
	// 14 days of a room that closes after 3.
	InvitationExpiresAt string `json:"invitation_expires,omitempty"`
	Title               string `json:"title,omitempty"`
	// Rounds is the room's history, every entry; the terms of an offer or
	// counter before the room's latest move are left out unless the view
	// was read with the whole history (Rooms.ReadHistory): see Elided.
	Rounds         []RoundView   `json:"rounds"`
	TermsOnTable   *TableView    `json:"terms_on_table,omitempty"`
	Approvals      ApprovalsView `json:"approvals,omitzero"`
	NoDealPossible []string      `json:"no_deal_possible,omitempty"`
	// NoDealNotes is NoDealPossible named for this side's human (their
	// labels, and whether terms may leave each out). For the humans' words.
	NoDealNotes []negotiation.CardNote `json:"-"`
	// DetailAsked is the fields the other side's last move asked more
	// detail on (negotiation.Room.DetailAsked). For the humans' words:
	// agents read rounds.
	DetailAsked         []negotiation.CardNote `json:"-"`
	PendingConfirmation *ConfirmationView      `json:"pending_confirmation,omitempty"`
	// Undelivered is what Taasky emailed for this side that the mail
	// server refused for good, while it still matters: the invitation
	// (invite_email) while nobody has joined, the request to this side's
	// human while that confirmation is pending. Only this side's.
	Undelivered []UndeliveredView `json:"undelivered,omitempty"`
	Next        negotiation.Next  `json:"next"`
	// NextCounterAt is when this side may counter again, while the
	// service's cool-down between counters holds it back.
	NextCounterAt string `json:"next_counter_at,omitempty"`
	// Card is the terms on the table as this side's human sees them (their
	// labels, their time zone), for the adapters to render.
	Card     *negotiation.Card `json:"-"`
	TimeZone *time.Location    `json:"-"`
	// InvitationExpires is when a room nobody joined closes as expired
	// (72 hours after the open), when that comes before the deadline;
	// zero otherwise. For the humans' words (a deadline that comes first
	// is said alone); agents read InvitationExpiresAt.
	InvitationExpires time.Time `json:"-"`
	// Lang is the language of this side's human: their setting, else
	// their identity provider's locale ("": none known).
	Lang string `json:"-"`
	// changesAt is when the view changes with no move (the cool-down's
	// end); zero when only a move changes it. It is on the database's
	// clock (Rooms.clock), which is clockAhead ahead of this process's
	// (as the read that built the view measured it): a waiting read counts
	// how long is left of it from this process's clock plus clockAhead.
	changesAt  time.Time
	clockAhead time.Duration
	seen       bool                   // the side's account had seen the other side's schema
	elided     bool                   // some entry of Rounds is without its terms (roomLogLight)
	rendered   atomic.Pointer[[]byte] // Rendered's
}

// Elided reports whether an entry of Rounds before the room's latest move
// was read without its terms: a view for a move or a read, not for the
// whole history (Rooms.ReadHistory).
func (v *View) Elided() bool { return v.elided }

// Rendered returns render(v), rendered once per view: Read keeps views and
// shares them between reads, and the adapter that sends them whole (MCP)
// need not render one again at each read. One adapter only may call it.
func (v *View) Rendered(render func(*View) ([]byte, error)) ([]byte, error) {
	if b := v.rendered.Load(); b != nil {
		return *b, nil
	}
	b, err := render(v)
	if err == nil {
		v.rendered.Store(&b)
	}
	return b, err
}

// UndeliveredView is one email the mail server refused for good (a 5xx,
// or every attempt used up), or, Retrying, an invitation or a request to
// confirm that has not gone out yet because an attempt failed and is
// being retried.
type UndeliveredView struct {
	What string `json:"what"` // UndeliveredInvitation or UndeliveredRequest
	// Retrying: the email has not gone out yet; Taasky keeps trying (the
	// mail server away, or answering "not now"). At is when an attempt
	// first failed.
	Retrying bool `json:"retrying,omitempty"`
	// To is the invitation's address: the one this side gave (nothing of a
	// request's: its human's address is not the agent's to learn).
	To             string `json:"to,omitempty"`
	ConfirmationID string `json:"confirmation_id,omitempty"` // a request's
	At             string `json:"at"`                        // when the refusal was recorded
	// When is At, for the humans' words.
	When time.Time `json:"-"`
}

// What UndeliveredView.What says.
const (
	UndeliveredInvitation = "invitation"
	UndeliveredRequest    = "confirmation_request"
)

// undeliveredRow is one side's entry of rooms.undelivered, as
// markUndelivered writes it.
type undeliveredRow struct {
	Invite         *time.Time    `json:"invite"`
	InviteDelayed  *time.Time    `json:"invite_delayed"` // markInviteDelayed's
	Request        *requestNoted `json:"request"`
	RequestDelayed *requestNoted `json:"request_delayed"` // markRequestDelayed's
}

// requestNoted is a request to confirm whose email was refused or delayed.
type requestNoted struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

// undeliveredOf is what the room's row says was refused of side's mail,
// of what still matters in room r: the invitation while r is a draft, the
// request while its confirmation is side's pending one.
func undeliveredOf(row *roomRow, r *negotiation.Room, side negotiation.Side) []UndeliveredView {
	if len(row.Undelivered) == 0 {
		return nil
	}
	var sides map[negotiation.Side]undeliveredRow
	if err := json.Unmarshal(row.Undelivered, &sides); err != nil {
		return nil // written by markUndelivered only; what nobody can read tells nothing
	}
	u := sides[side]
	var out []UndeliveredView
	invite, retrying := u.Invite, false
	if invite == nil {
		invite, retrying = u.InviteDelayed, true // a refusal for good is said instead of a delay
	}
	if invite != nil && side == negotiation.SideA && r.State == negotiation.StateDraft {
		v := UndeliveredView{What: UndeliveredInvitation, Retrying: retrying, At: invite.UTC().Format(timeLayout), When: *invite}
		if row.InviteEmail != nil {
			v.To = *row.InviteEmail
		}
		out = append(out, v)
	}
	c := r.PendingFor(side)
	q, retrying := u.Request, false
	if q == nil || c == nil || q.ID != c.ID {
		q, retrying = u.RequestDelayed, true // a refusal for good is said instead of a delay
	}
	if q != nil && c != nil && c.ID == q.ID {
		out = append(out, UndeliveredView{What: UndeliveredRequest, Retrying: retrying, ConfirmationID: q.ID,
			At: q.At.UTC().Format(timeLayout), When: q.At})
	}
	return out
}

// undeliveredNext is us as next tells of it.
func undeliveredNext(us []UndeliveredView) negotiation.Undelivered {
	var u negotiation.Undelivered
	for _, x := range us {
		switch x.What {
		case UndeliveredInvitation:
			u.Invitation, u.InvitationRetrying, u.Address = !x.Retrying, x.Retrying, x.To
		case UndeliveredRequest:
			u.Request, u.RequestRetrying = !x.Retrying, x.Retrying
		}
	}
	return u
}

// RoundView is one entry of the room's history.
type RoundView struct {
	Round       int                     `json:"round"`
	By          string                  `json:"by"` // "you" or "them"
	Verdict     negotiation.Verdict     `json:"verdict"`
	Terms       []OptionView            `json:"terms,omitempty"`
	Fields      []string                `json:"fields,omitempty"`
	SubjectHash negotiation.SubjectHash `json:"subject_hash,omitempty"` // approve
	At          string                  `json:"at"`
}

// OptionView is one set of terms with its hash.
type OptionView struct {
	SubjectHash       negotiation.SubjectHash `json:"subject_hash"`
	Terms             json.RawMessage         `json:"terms"`
	OutsideYourLimits []negotiation.Breach    `json:"outside_your_limits,omitempty"`
}

// TableView is the terms on the table.
type TableView struct {
	By        string       `json:"by"`
	AsOptions bool         `json:"as_options,omitempty"`
	Options   []OptionView `json:"options"`
	// YouLack: fields of theirs your schema does not have. TheyLack:
	// required fields of yours their terms do not give.
	YouLack  []string `json:"you_lack,omitempty"`
	TheyLack []string `json:"they_lack,omitempty"`
}

// ApprovalsView is each side's current approval.
type ApprovalsView struct {
	You  *negotiation.SubjectHash `json:"you,omitempty"`
	Them *negotiation.SubjectHash `json:"them,omitempty"`
}

func whose(me, s negotiation.Side) string {
	if s == me {
		return "you"
	}
	return "them"
}

func hashPtr(h negotiation.SubjectHash) *negotiation.SubjectHash {
	if h == "" {
		return nil
	}
	return &h
}

// view builds the side's view of a loaded room.
func (s *Rooms) view(ctx context.Context, q querier, ld *loaded, side negotiation.Side) (*View, error) {
	r := ld.room
	v := &View{RoomID: ld.row.ID, Side: side, State: r.State, ClosedReason: r.ClosedReason, Round: r.Round,
		Deadline: r.Deadline.UTC().Format(timeLayout), NoDealPossible: r.NoDeal, NoDealNotes: r.NoDealNotes(side), Next: r.Next(side),
		Approvals:           ApprovalsView{You: hashPtr(r.Approval(side)), Them: hashPtr(r.Approval(side.Other()))},
		PendingConfirmation: confirmationView(r.PendingFor(side))}
	if ld.row.Title != nil {
		v.Title = *ld.row.Title
	}
	if end := r.InvitationEnd(); r.State == negotiation.StateDraft {
		v.InvitationExpiresAt = end.UTC().Format(timeLayout)
		if end.Before(r.Deadline) {
			v.InvitationExpires = end // the protocol's end of the invitation, when it is not the deadline
		}
	}
	if r.Turn != "" {
		t := whose(side, r.Turn)
		v.Turn = &t
	}
	log, err := s.logCache.decode(ld.row)
	if err != nil {
		return nil, err
	}
	evs := events(log)
	v.Rounds, v.elided = roundsOf(log, side)
	v.DetailAsked = r.DetailAsked(evs, side)
	at := s.clock(ld.row)
	v.clockAhead = at.Sub(s.now())
	next, coolEnd := s.pace.Advise(r, side, negotiation.LastTabled(evs, side), at, negotiation.TempoOf(evs, negotiation.DefaultTempo))
	v.Undelivered = undeliveredOf(ld.row, r, side)
	v.Next = next.Undelivered(undeliveredNext(v.Undelivered))
	if coolEnd != nil {
		v.NextCounterAt = coolEnd.UTC().Format(timeLayout)
		v.changesAt = *coolEnd
	}
	// A kept view is read again once its check_after has passed, so that
	// it never advises a moment in the past.
	if c := next.CheckAfter; c != nil && (v.changesAt.IsZero() || c.Before(v.changesAt)) {
		v.changesAt = *c
	}
	seen, tz, lang, err := s.seatHuman(ctx, q, ld, side)
	if err != nil {
		return nil, err
	}
	v.Card, v.TimeZone, v.Lang, v.seen = r.Card(side, seen, tz), tz, lang, seen
	if r.Table != nil {
		v.TermsOnTable = tableView(r.Table, side, v.Card)
	}
	return v, nil
}

// tableView is the terms on the table for side; what their terms lack or
// break of side's comes from side's card, which decided it.
func tableView(t *negotiation.Table, side negotiation.Side, card *negotiation.Card) *TableView {
	tv := &TableView{By: whose(side, t.By), AsOptions: t.AsOptions}
	for _, o := range t.Options {
		tv.Options = append(tv.Options, OptionView{SubjectHash: o.Hash(), Terms: o.Canonical()})
	}
	if t.By == side || card == nil || len(card.Options) != len(tv.Options) {
		return tv
	}
	for i := range tv.Options {
		tv.Options[i].OutsideYourLimits = card.Options[i].Breaches()
	}
	if len(card.Options) > 0 {
		tv.YouLack, tv.TheyLack = card.Options[0].TheirFields(), card.Options[0].MissingFields()
	}
	return tv
}

// roundsOf is the history of moves as side sees it, and whether an entry
// came without its terms (loggedEvent.elided).
func roundsOf(log []*loggedEvent, side negotiation.Side) ([]RoundView, bool) {
	out := []RoundView{}
	round := 0
	elided := false
	for _, ev := range log {
		switch {
		case ev.Kind == negotiation.EventPropose:
			round++
			elided = elided || ev.elided()
			rv := RoundView{Round: round, By: whose(side, ev.Side), Verdict: ev.Verdict, Fields: ev.Fields, At: ev.At.UTC().Format(timeLayout)}
			for i, t := range ev.Terms {
				rv.Terms = append(rv.Terms, OptionView{SubjectHash: ev.Hashes[i], Terms: t})
			}
			out = append(out, rv)
		case ev.Kind == negotiation.EventDecide && ev.Outcome == negotiation.ResultApplied:
			out = append(out, RoundView{Round: round, By: whose(side, ev.Side), Verdict: ev.Verdict,
				SubjectHash: ev.Hash, At: ev.At.UTC().Format(timeLayout)})
		}
	}
	return out, elided
}

// seatHuman is humanContext for side's card, from what the room's statement
// read of the side's human (roomRow.human: a seat, a one-tap link, a notice)
// when that still holds (the other side's schema unchanged).
func (s *Rooms) seatHuman(ctx context.Context, q querier, ld *loaded, side negotiation.Side) (seen bool, tz *time.Location, lang string, err error) {
	theirs := ld.room.Party(side.Other()).Schema
	fp := ""
	if theirs != nil {
		fp = string(theirs.Fingerprint())
	}
	if h := ld.row.human; h != nil && h.side == side && h.theirFP == fp {
		return h.seen, s.zoneOf(h.zone), h.lang, nil
	}
	return s.humanContext(ctx, q, ld.row.party(side), theirs)
}

// humanContext is what a party's card and words need of its human:
// whether their account has seen the other side's schema, their time
// zone, and their language ("": none known).
func (s *Rooms) humanContext(ctx context.Context, q querier, p *partyRow, theirs *negotiation.Schema) (bool, *time.Location, string, error) {
	if p == nil {
		return false, time.UTC, "", nil
	}
	fp := ""
	if theirs != nil {
		fp = string(theirs.Fingerprint())
	}
	h, err := selectHumanContext(ctx, q, p, fp)
	if err != nil {
		return false, nil, "", fmt.Errorf("human context: %w", err)
	}
	return h.seen, s.zoneOf(h.zone), h.lang, nil
}

// zoneOf is a human's time zone, UTC when they set none.
func (s *Rooms) zoneOf(name *string) *time.Location {
	if name == nil {
		return time.UTC
	}
	return s.zone(*name)
}

// zone loads a time zone once per process (LoadLocation reads tzdata).
func (s *Rooms) zone(name string) *time.Location {
	if loc, ok := s.zones.Load(name); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	s.zones.Store(name, loc)
	return loc
}
