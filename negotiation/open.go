package negotiation

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// OpenRequest is everything the initiator declares at open.
type OpenRequest struct {
	Schema     json.RawMessage   // the subject_schema, unless Slots
	Limits     json.RawMessage   // private, optional
	Subject    json.RawMessage   // opening terms, optional
	Options    []json.RawMessage // or 2–10 opening options; non-nil is given (an empty list too)
	Slots      []json.RawMessage // or 1–10 timeranges: shorthand for SlotsSchema with one option each; likewise
	Preapprove bool              // the initiator's human confirms once that any option is fine
	Deadline   *time.Time        // default DefaultDeadline after the open, at most MaxDeadline
	Title      string            // shown to both as the inviter's words ("": none); logged, not played
	// Zone is the time zone of the opener's human, whose calendar counts
	// a deadline's days: the default deadline is at the open's time of day
	// DefaultDeadline's days later there, and a given one at most
	// MaxDeadline's days later there (or MaxDeadline, if that is later),
	// whatever clock change falls between (14 days across the autumn
	// change are 14 × 24 h + 1 h). nil: UTC, whose days are 24 hours.
	Zone *time.Location
	// PreapprovalID names the preapproval confirmation when Preapprove is set.
	PreapprovalID string
	// PreapprovalAnnouncement is whether a message asks the initiator's
	// human for the preapproval (Request).
	PreapprovalAnnouncement Announcement
	// Fold is the door's Unicode normalization (NFKC), applied before the
	// schema's labels and values are compared for lookalikes
	// (CheckDeceptiveFolded); nil: none.
	Fold func(string) string
}

// inputErr is bad input other than terms, at at ("" when the message
// names no place): key is its text in the catalog, format in English.
func inputErr(at, key, format string, args ...any) *Error {
	return ruleErr(CodeInvalidInput, at, key, format, args...)
}

// Open validates an open and returns the draft room with the events to log:
// the open, the opening offer if terms were given, and the preapproval
// request. Warnings are the schema's "keep it small" advice.
func Open(req OpenRequest, at time.Time) (*Room, []Event, []string, error) {
	var schemaJSON []byte
	var warnings []string
	switch {
	case req.Slots != nil: // given, even empty: [] is refused, not taken for absent
		if len(req.Schema) > 0 {
			return nil, nil, nil, inputErr("", "rule.schema_or_slots", "pass subject_schema or slots, not both")
		}
		if len(req.Subject) > 0 || req.Options != nil {
			return nil, nil, nil, inputErr("", "rule.slots_alone", "slots are the opening options; pass no subject or options with them")
		}
		if len(req.Slots) == 0 || len(req.Slots) > MaxOptions {
			return nil, nil, nil, inputErr("slots", "rule.slots_count", "1 to %d", MaxOptions)
		}
		schemaJSON = SlotsSchema().Canonical()
	case len(req.Schema) == 0:
		return nil, nil, nil, inputErr("", "rule.schema_required_or_slots", "subject_schema is required (or slots, for a meeting time)")
	default:
		s, w, err := ParseSchema(req.Schema)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := s.CheckDeceptiveFolded(req.Fold); err != nil {
			return nil, nil, nil, err
		}
		schemaJSON, warnings = s.Declared(), w
	}
	if len(req.Subject) > 0 && req.Options != nil {
		return nil, nil, nil, inputErr("", "rule.subject_or_options", "pass subject or options, not both")
	}
	if req.Preapprove && req.Options == nil && len(req.Slots) < MinOptions {
		return nil, nil, nil, inputErr("", "rule.preapprove_options", "preapprove needs options or slots to choose from")
	}
	given := req.Deadline
	if given == nil && req.Zone != nil {
		// The default, on the zone's calendar; logged as if given when it
		// is not DefaultDeadline after the open, so that Replay, which
		// knows no zone, reads the same deadline.
		if d := DefaultDeadlineIn(at, req.Zone); !d.Equal(at.Add(DefaultDeadline)) {
			given = &d
		}
	}
	r, err := openRoom(schemaJSON, req.Limits, len(req.Slots) > 0, req.Preapprove, given, at)
	if err != nil {
		return nil, nil, nil, err
	}
	// At most MaxDeadline's days on the zone's calendar, or 24-hour days,
	// whichever is later: a deadline taken before stays taken.
	if latest := daysLater(at, req.Zone, MaxDeadline); req.Deadline != nil && req.Deadline.After(latest) && req.Deadline.Sub(at) > MaxDeadline {
		return nil, nil, nil, deadlineFar()
	}
	var deadline *time.Time // as the room keeps it: in UTC (any offset Go's parser took writes as JSON)
	if given != nil {
		d := r.Deadline
		deadline = &d
	}
	title := req.Title
	events := []Event{{Kind: EventOpen, Side: SideA, At: at, Schema: schemaJSON,
		Slots: r.Slots, Preapprove: r.Preapprove, Deadline: deadline, Title: &title}}
	subject, options := req.Subject, req.Options
	if len(req.Slots) == 1 {
		subject = slotTerms(req.Slots[0])
	} else if len(req.Slots) > 1 {
		options = make([]json.RawMessage, len(req.Slots))
		for i, s := range req.Slots {
			options[i] = slotTerms(s)
		}
	}
	if len(subject) > 0 || options != nil {
		var ev Event
		r, ev, err = r.Propose(SideA, Move{Verdict: VerdictOffer, Subject: subject, Options: options}, at)
		if err != nil {
			if e, ok := err.(*Error); ok && len(req.Slots) > 0 {
				return nil, nil, nil, slotsErr(e, len(req.Slots))
			}
			return nil, nil, nil, err
		}
		events = append(events, ev)
	}
	if req.Preapprove {
		var ev Event
		r, ev, err = r.RequestPreapproval(SideA, req.PreapprovalID, at, req.PreapprovalAnnouncement)
		if err != nil {
			return nil, nil, nil, err
		}
		events = append(events, ev)
	}
	return r, events, warnings, nil
}

// slotsErr places a refusal of n opening slots at the slot it names
// ("slots[1]: end must be after start"), not at the options and the field
// the slots became ("options[1]: meeting_time: …").
func slotsErr(e *Error, n int) *Error {
	place := func(s string) string {
		if n == 1 {
			s = "slots[0]: " + s
		}
		s = strings.ReplaceAll(s, "options[", "slots[")
		return strings.Replace(s, "meeting_time: ", "", 1) // the field every slot fills
	}
	words := e.Words
	words.At = strings.TrimSuffix(place(words.At+": "), ": ")
	return &Error{Code: e.Code, Message: place(e.Message), Words: words}
}

func slotTerms(slot json.RawMessage) json.RawMessage {
	return append(append([]byte(`{"meeting_time":`), slot...), '}')
}

func openRoom(schemaJSON, limitsJSON []byte, slots, preapprove bool, deadline *time.Time, at time.Time) (*Room, error) {
	s, _, err := ParseSchema(schemaJSON)
	if err != nil {
		return nil, err
	}
	lim, err := s.ParseLimits(limitsJSON)
	if err != nil {
		return nil, err
	}
	r := &Room{State: StateDraft, Turn: SideA, Slots: slots, Preapprove: preapprove,
		OpenedAt: at, ExpiresAt: at.Add(InvitationTTL), Deadline: at.Add(DefaultDeadline)}
	r.Parties[0] = Party{Schema: s, Limits: lim}
	if deadline != nil {
		if !deadline.After(at) {
			return nil, inputErr("", "rule.deadline_past", "deadline must be in the future")
		}
		// Open holds a given deadline to MaxDeadline's days on the
		// opener's calendar; a log is read without the zone, so its open
		// may be up to a clock change more than MaxDeadline away.
		if deadline.Sub(at) > MaxDeadline+maxClockChange {
			return nil, deadlineFar()
		}
		r.Deadline = deadline.UTC()
	}
	return r, nil
}

// maxClockChange bounds how much longer than whole 24-hour days a span of
// calendar days can be: the largest change of a zone's clocks in tzdata
// (Antarctica/Troll's, 2 hours).
const maxClockChange = 2 * time.Hour

// daysLater is the moment the days of d later than at on loc's calendar
// (nil: UTC), at at's time of day there (a time its clocks skip that day
// is read as time.Date reads it).
func daysLater(at time.Time, loc *time.Location, d time.Duration) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return at.In(loc).AddDate(0, 0, int(d/(24*time.Hour))).UTC()
}

// DefaultDeadlineIn is the deadline of a room opened at `at` by a human in
// loc that gives none: DefaultDeadline's days later on loc's calendar.
// Where it is DefaultDeadline after `at`, the zone changes nothing.
func DefaultDeadlineIn(at time.Time, loc *time.Location) time.Time {
	return daysLater(at, loc, DefaultDeadline)
}

// GivenDeadlineNeedsZone reports whether Open's answer for a given
// deadline depends on the opener's zone: only past MaxDeadline's 24-hour
// days, where a clock going back between may keep it within MaxDeadline's
// days on their calendar. A caller reads the zone for those opens only.
func GivenDeadlineNeedsZone(deadline *time.Time, at time.Time) bool {
	return deadline != nil && deadline.Sub(at) > MaxDeadline
}

func deadlineFar() *Error {
	return inputErr("", "rule.deadline_far", "deadline must be at most %d days away", int(MaxDeadline/(24*time.Hour)))
}

// Joinable says why the invitation can no longer be answered at `at`
// (used, withdrawn, expired, the room closed or past its deadline), nil
// while it can.
func (r *Room) Joinable(at time.Time) error {
	if r.State != StateDraft {
		if r.State == StateClosed {
			switch r.ClosedReason {
			case ClosedWithdrawn:
				return refused("rule.invitation_withdrawn", "the invitation was withdrawn")
			case ClosedExpired:
				return refused("rule.invitation_expired", "the invitation has expired")
			case ClosedLapsed:
				if r.Parties[1].Schema == nil {
					// A draft whose deadline came before its invitation's
					// end: the reason, as before the sweep closed it.
					return refused("rule.deadline_passed", "the deadline has passed")
				}
			}
		}
		if r.State == StateAwaiting || r.Parties[1].Schema != nil {
			return refused("rule.invitation_used", "the invitation has been used already")
		}
		return roomIs(r.State)
	}
	return r.checkLive(at)
}

// InvitationEnd is when the invitation can be answered until: its end,
// InvitationTTL after the open, or the deadline if that comes first.
func (r *Room) InvitationEnd() time.Time {
	if r.ExpiresAt.Before(r.Deadline) {
		return r.ExpiresAt
	}
	return r.Deadline
}

// Rejoin checks a second join by the peer already seated: the same move
// (the same schema, or none in a slots room that took the inviter's; the
// same limits however written, or none restated) is answered with its
// seat; another schema or other limits are refused, since they are fixed
// once declared.
func (r *Room) Rejoin(schemaJSON, limitsJSON json.RawMessage) error {
	b := r.Party(SideB)
	var schema *Schema
	if r.Slots {
		schema = r.Party(SideA).Schema // none given: the inviter's, as Join takes it
	}
	if len(schemaJSON) > 0 {
		var err error
		if schema, _, err = ParseSchema(schemaJSON); err != nil {
			schema = nil
		}
	}
	if schema == nil || b.Schema == nil || schema.Fingerprint() != b.Schema.Fingerprint() {
		return ruleErr(CodeRefused, "subject_schema", "rule.join_schema_fixed", "you joined this room already with another schema; it is fixed once declared")
	}
	if len(bytes.TrimSpace(limitsJSON)) == 0 {
		return nil // not restated: the limits declared hold
	}
	if limits, err := b.Schema.ParseLimits(limitsJSON); err != nil || !limits.Same(b.Limits) {
		return ruleErr(CodeRefused, "limits", "rule.join_limits_fixed", "you joined this room already with other limits; limits are fixed once declared")
	}
	return nil
}

// Join seats the peer with its schema (the inviter's, in a slots room,
// when none is given) and limits. The turn is the peer's if terms are on
// the table, the initiator's if not. No deal possible is decided here, once.
func (r *Room) Join(schemaJSON, limitsJSON json.RawMessage, at time.Time) (*Room, Event, error) {
	if err := r.Joinable(at); err != nil {
		return nil, Event{}, err
	}
	var s *Schema
	if len(schemaJSON) == 0 {
		if !r.Slots {
			return nil, Event{}, inputErr("", "rule.schema_required", "subject_schema is required")
		}
		s = r.Parties[0].Schema
	} else {
		var err error
		if s, _, err = ParseSchema(schemaJSON); err != nil {
			return nil, Event{}, err
		}
	}
	lim, err := s.ParseLimits(limitsJSON)
	if err != nil {
		return nil, Event{}, err
	}
	n := r.clone()
	n.Parties[1] = Party{Schema: s, Limits: lim}
	n.State = StateAwaiting
	n.Turn = SideA
	if n.Table != nil {
		n.Turn = SideB
	}
	a := n.Parties[0]
	n.NoDeal = NoDealPossible(a.Schema, a.Limits, s, lim)
	return n, Event{Kind: EventJoin, Side: SideB, At: at, Schema: s.Declared()}, nil
}
