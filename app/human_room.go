package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// HumanRoom is a room as a member of one of its accounts sees it on the
// dashboard: the side's view, its card and timeline rendered through the
// side's own schema in the viewer's time zone, and the side's own limits.
// Nothing in it comes from the other side's limits but the protocol's flags.
type HumanRoom struct {
	View        *View
	Side        negotiation.Side
	Deadline    time.Time
	AccountSlug string
	AccountName string
	// Them says who sits across: an account's name, or "" before anyone
	// joined, when ThemPerson or when ThemDeleted (the adapter says those
	// in the reader's words).
	Them string
	// ThemPerson: a person without an account answers in the browser.
	ThemPerson bool
	// ThemDeleted: the other side's account was deleted; its side of the
	// room stays as it was.
	ThemDeleted bool
	// CanDecide: the viewer may answer this side's confirmations
	// (access.go: its human, or an owner once its human left).
	CanDecide bool
	// SeatHuman is the email of the human who answers for this side, ""
	// when they left the account (its owners answer then: SeatOrphaned).
	SeatHuman    string
	SeatIsYou    bool
	SeatOrphaned bool
	// OtherSide: the side is orphaned and the viewer, an owner, is the
	// room's other side's human, so the account's other owners answer it
	// (answersTheOtherSide).
	OtherSide bool
	// AnsweredOtherSide: the side is orphaned and the viewer, who may
	// answer for it, answered for the room's other side
	// (answeredTheOtherSide).
	AnsweredOtherSide bool
	// CanCancel: the side's human left the account and the viewer, an
	// owner who may answer for it, may end the negotiation for it
	// (CancelForSeat).
	CanCancel bool
	// Notes are the side's timeline entries that are not moves (a member
	// left), oldest first.
	Notes []RoomNote
	// Schema is the side's own schema: the one a counter is written in.
	Schema   *negotiation.Schema
	Pending  *negotiation.Confirmation
	Card     *negotiation.Card
	Timeline []HumanRound
	// Limits are the side's own limits as declared (each bound and its
	// values), for the adapter to write in the reader's words and zone.
	Limits   []negotiation.Limit
	NoDeal   []negotiation.CardNote
	TimeZone *time.Location
	// Answered is a confirmation of this side the viewer asked about
	// (after answering it): what became of it.
	Answered *SettledConfirmation
}

// HumanRound is one move of the timeline, its terms rendered like a card.
type HumanRound struct {
	RoundView
	At      time.Time
	Options []negotiation.CardOption
	// AskedAbout is a need_more_detail's fields by the viewer's labels,
	// or by the other side's, marked theirs, for a field only they have.
	AskedAbout []AskedField
}

// AskedField is one field a need_more_detail asked about.
type AskedField struct {
	Label     string
	Theirs    bool
	Shorthand bool // Label is Taasky's name for the slots shorthand's field
}

// SettledConfirmation is what became of a confirmation.
type SettledConfirmation struct {
	ID      string
	Verdict negotiation.Verdict
	Status  string // pending, applied, declined, void
	Why     string
}

// ForHuman reads the room as userID sees it (see HumanSide for want).
// answered, if not "", asks what became of that confirmation of the side.
// It changes nothing.
func (s *Rooms) ForHuman(ctx context.Context, userID, roomID int64, want negotiation.Side, answered string) (*HumanRoom, error) {
	var h *HumanRoom
	err := pgx.BeginTxFunc(ctx, s.pool, readOnly, func(tx pgx.Tx) error {
		seat, err := humanSide(ctx, tx, userID, roomID, want)
		if err != nil {
			return err
		}
		side := negotiation.Side(seat.Side)
		ld, err := s.load(ctx, tx, roomID, false)
		if err != nil {
			return err
		}
		h, err = s.humanRoom(ctx, tx, ld, side, userID, nil)
		if err != nil {
			return err
		}
		if err := h.access(ctx, tx, ld.row, seat, userID); err != nil || answered == "" {
			return err
		}
		h.Answered, err = selectSettledConfirmation(ctx, tx, roomID, side, answered)
		return err
	})
	return h, err
}

// humanRoom builds the side's HumanRoom for userID, in their time zone; a
// person without an account (userID 0) sees it in loc, or, loc nil (their
// browser has not told their zone), in the zone of the other side's human.
func (s *Rooms) humanRoom(ctx context.Context, q querier, ld *loaded, side negotiation.Side, userID int64, loc *time.Location) (*HumanRoom, error) {
	v, err := s.view(ctx, q, ld, side)
	if err != nil {
		return nil, err
	}
	r := ld.room
	h := &HumanRoom{View: v, Side: side, Pending: r.PendingFor(side), TimeZone: loc, Schema: r.Party(side).Schema,
		Deadline: r.Deadline}
	me, them := ld.row.party(side), ld.row.party(side.Other())
	h.CanDecide = me != nil && me.OwnerUserID != nil && *me.OwnerUserID == userID
	// The side's account, the other side's name and the viewer's time zone
	// (or their human's), in one statement (each part NULL when it does not
	// apply).
	var mine, theirs, guessFrom *int64
	if me != nil {
		mine = me.AccountID
	}
	if them != nil {
		theirs = them.AccountID
		if userID == 0 && loc == nil {
			guessFrom = them.OwnerUserID
		}
	}
	people, err := selectRoomPeople(ctx, q, mine, theirs, userID, guessFrom)
	if err != nil {
		return nil, fmt.Errorf("room's people: %w", err)
	}
	if people.slug != nil {
		h.AccountSlug, h.AccountName = *people.slug, *people.name
	}
	switch {
	case them == nil:
	case them.AccountID == nil:
		h.ThemPerson = true
	case people.them != nil:
		h.Them = *people.them
	default:
		h.ThemDeleted = theirAccountDeleted(them, people.them)
	}
	if userID != 0 || loc == nil {
		h.TimeZone = s.zoneOf(people.zone)
	}
	// Whether the side's account has seen the other side's schema is the
	// view's (seatHuman): the same account, the same schema.
	seen := v.seen
	h.fill(r, side, seen)
	return h, nil
}

// fill renders the card, the timeline, the notes and the side's limits.
func (h *HumanRoom) fill(r *negotiation.Room, side negotiation.Side, seen bool) {
	h.Card = r.Card(side, seen, h.TimeZone)
	if h.Card != nil {
		h.NoDeal = h.Card.NoDeal
	} else {
		h.NoDeal = r.NoDealNotes(side)
	}
	for _, rv := range h.View.Rounds {
		hr := HumanRound{RoundView: rv}
		hr.At, _ = time.Parse(timeLayout, rv.At)
		mover := side
		if rv.By == "them" {
			mover = side.Other()
		}
		hr.Options = renderTerms(r, side, mover, rv.Terms, h.TimeZone)
		for _, name := range rv.Fields {
			if f, mine := r.Party(side).Schema.Field(name); mine {
				hr.AskedAbout = append(hr.AskedAbout, AskedField{Label: f.Label, Shorthand: f.Shorthand})
			} else if f, theirs := r.Party(side.Other()).Schema.Field(name); theirs {
				hr.AskedAbout = append(hr.AskedAbout, AskedField{Label: f.Label, Theirs: true, Shorthand: f.Shorthand})
			}
		}
		h.Timeline = append(h.Timeline, hr)
	}
	h.Limits = slices.Clone(r.Party(side).Limits.List()) // the room's own list stays the room's
}

// invitersLabels marks every label a person reads (they answer with the
// inviter's schema) as the inviter's words, but Taasky's own name for the
// slots shorthand's field: on the card and in the timeline.
func (h *HumanRoom) invitersLabels() {
	h.Card.InvitersLabels()
	for i := range h.Timeline {
		for _, o := range h.Timeline[i].Options {
			negotiation.InvitersLabels(o.Fields)
		}
		for j := range h.Timeline[i].AskedAbout {
			f := &h.Timeline[i].AskedAbout[j]
			f.Theirs = !f.Shorthand
		}
	}
}

// renderTerms renders terms a side tabled through the viewer's schema, as a
// card would (a card of a room whose table held them).
func renderTerms(r *negotiation.Room, viewer, mover negotiation.Side, opts []OptionView, loc *time.Location) []negotiation.CardOption {
	schema := r.Party(mover).Schema
	if len(opts) == 0 || schema == nil || r.Party(viewer).Schema == nil {
		return nil
	}
	t := &negotiation.Table{By: mover}
	for _, o := range opts {
		terms, err := schema.ParseTerms(o.Terms)
		if err != nil {
			return nil // stored terms always parse; render nothing rather than fail the page
		}
		t.Options = append(t.Options, terms)
	}
	past := *r
	past.Table = t
	c := past.Card(viewer, true, loc)
	if c == nil {
		return nil
	}
	return c.Options
}

// SeesRoom tells whether userID may see the room: a seat of one of their
// accounts is in it. Otherwise it is not found.
func (s *Rooms) SeesRoom(ctx context.Context, userID, roomID int64) error {
	_, err := humanSide(ctx, s.pool, userID, roomID, "")
	return err
}

// RoomSeat is a seat of a room held by an account: the account, and the
// member who answers for it (0: nobody, app/access.go).
type RoomSeat struct {
	Account, Owner int64
}

// RoomSeats lists the seats of a room that are accounts' (for live updates:
// an account's leads see every room of it, a member only their own seats').
func (s *Rooms) RoomSeats(ctx context.Context, roomID int64) ([]RoomSeat, error) {
	return selectRoomSeats(ctx, s.pool, roomID)
}
