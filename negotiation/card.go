package negotiation

import "time"

// Card is what one party's human sees of the terms on the table: rendered
// through their own schema, with the other side's words marked as theirs.
// Only the viewer's own limits are involved, and only as flags.
type Card struct {
	Viewer    Side          `json:"viewer"`
	TabledBy  Side          `json:"tabled_by"`         // who put these terms on the table
	Options   []CardOption  `json:"options"`           // one, or the options to choose from
	NoDeal    []CardNote    `json:"no_deal,omitempty"` // fields on which no deal is possible
	NewSchema bool          `json:"new_schema"`        // the other side's schema is new to the viewer's account, and the terms are theirs
	Asking    *Confirmation `json:"asking,omitempty"`
	// Agrees: the viewer is asked to approve (Asking) terms the other side
	// approved already, or to preapprove options the other side picked one
	// of, so the viewer's confirmation agrees the room.
	Agrees bool `json:"agrees,omitempty"`
}

// CardOption is one set of terms on the card.
type CardOption struct {
	SubjectHash SubjectHash `json:"subject_hash"`
	Fields      []CardField `json:"fields"`
	Outside     bool        `json:"outside_your_limits"` // any field is outside the viewer's limits
	// TheyApproved: the other side approved these terms (or preapproved
	// the opening options): the viewer's approval agrees the room.
	TheyApproved bool `json:"they_approved,omitempty"`
}

// CardField is one field of one option.
type CardField struct {
	Name    string  `json:"name"`
	Label   string  `json:"label"`             // the viewer's label, or theirs when Theirs
	Theirs  bool    `json:"theirs,omitempty"`  // a field of theirs the viewer's schema lacks: their label, their words
	Missing bool    `json:"missing,omitempty"` // a required field of the viewer's that their terms lack
	Text    string  `json:"text,omitempty"`    // the value for a person, in the viewer's time zone
	Values  []Value `json:"-"`
	Type    Type    `json:"type"`
	Outside []Bound `json:"outside_your_limits,omitempty"` // the viewer's bounds this value breaks (never a number)
	NoDeal  bool    `json:"no_deal,omitempty"`
	// TheirLabel: the viewer answers with the other side's schema (a person
	// invited to a room), so Label is the other side's words, though the
	// field is the viewer's too (InvitersLabels).
	TheirLabel bool `json:"-"`
	// Shorthand: Label is Taasky's name for the slots shorthand's field
	// (Field.Shorthand), neither side's words; a person reads it in their
	// own language. Agents get Label as the schema holds it.
	Shorthand bool `json:"-"`
}

// CardNote names a field on which no deal is possible.
type CardNote struct {
	Name      string `json:"name"`
	Label     string `json:"label"`
	Theirs    bool   `json:"theirs,omitempty"` // a field the viewer's schema lacks: their label
	Shorthand bool   `json:"-"`                // as CardField.Shorthand
	// Optional: a no-deal field either side's schema lets terms leave
	// out; terms without it can still agree (NoDealNotes).
	Optional bool `json:"-"`
}

// NoDealNotes names, in the viewer's labels, the fields on which no deal
// is possible (the room's NoDeal that the viewer's schema has), each
// marked Optional when terms may leave it out. None once the room agreed:
// the agreed terms settled it (the humans may approve outside their
// limits), and the note would contradict them.
func (r *Room) NoDealNotes(viewer Side) []CardNote {
	mine := r.Party(viewer).Schema
	if mine == nil || r.State == StateAgreed {
		return nil
	}
	var out []CardNote
	for _, name := range r.NoDeal {
		if f, ok := mine.Field(name); ok {
			out = append(out, CardNote{Name: name, Label: f.Label, Shorthand: f.Shorthand, Optional: r.optionalInEither(name)})
		}
	}
	return out
}

// Note names a field for the viewer: by the viewer's label, else (a field
// only the other side's schema has) by theirs, marked as theirs. ok is
// false for a field neither schema has.
func (r *Room) Note(viewer Side, name string) (n CardNote, ok bool) {
	if s := r.Party(viewer).Schema; s != nil {
		if f, mine := s.Field(name); mine {
			return CardNote{Name: name, Label: f.Label, Shorthand: f.Shorthand}, true
		}
	}
	if s := r.Party(viewer.Other()).Schema; s != nil {
		if f, theirs := s.Field(name); theirs {
			return CardNote{Name: name, Label: f.Label, Theirs: true, Shorthand: f.Shorthand}, true
		}
	}
	return CardNote{}, false
}

// DetailAsked names for viewer (Note) the fields the other side's last
// move asked more detail on, when that move was a need_more_detail and the
// room still awaits; nil once anyone moved since (a proposal, or a human's
// answer that applied). A field neither schema has is left out.
func (r *Room) DetailAsked(events []Event, viewer Side) []CardNote {
	if r.State != StateAwaiting {
		return nil
	}
	for i := len(events) - 1; i >= 0; i-- {
		ev := &events[i]
		if ev.Kind != EventPropose && (ev.Kind != EventDecide || ev.Outcome != ResultApplied) {
			continue
		}
		if ev.Side == viewer || ev.Kind != EventPropose || ev.Verdict != VerdictNeedMoreDetail {
			return nil
		}
		var out []CardNote
		for _, name := range ev.Fields {
			if note, ok := r.Note(viewer, name); ok {
				out = append(out, note)
			}
		}
		return out
	}
	return nil
}

// Card builds the viewer's card for the terms on the table (nil if none).
// seen says whether the viewer's account has confirmed terms under the
// other side's schema before; loc is the viewer's time zone.
func (r *Room) Card(viewer Side, seen bool, loc *time.Location) *Card {
	if r.Table == nil || r.Party(viewer).Schema == nil {
		return nil // nothing on the table, or the viewer has not joined
	}
	me, them := r.Party(viewer), r.Party(viewer.Other())
	// The note on a new schema asks the viewer to check how the other
	// side's terms read through their own form: terms the viewer tabled
	// are in their own form already.
	c := &Card{Viewer: viewer, TabledBy: r.Table.By, NewSchema: them.Schema != nil && !seen && r.Table.By != viewer,
		Asking: r.PendingFor(viewer)}
	c.NoDeal = r.NoDealNotes(viewer)
	tabler := r.Party(r.Table.By).Schema
	for _, t := range r.Table.Options {
		o := r.cardOption(me, tabler, t, viewer != r.Table.By, loc)
		// Said while an approval can still agree the room.
		o.TheyApproved = !r.State.Terminal() && r.approvedBy(viewer.Other(), o.SubjectHash)
		c.Options = append(c.Options, o)
	}
	if a := c.Asking; a != nil {
		switch a.Verdict {
		case VerdictApprove:
			c.Agrees = r.approvedBy(viewer.Other(), a.SubjectHash)
		case VerdictPreapprove: // the other side picked an option already: the preapproval agrees it
			c.Agrees = r.Approval(viewer.Other()) != ""
		}
	}
	return c
}

// approvedBy says whether side's approval stands on the option h of the
// table: its own, or (a) a preapproval of the opening options, which counts
// as a's approval of the option b approves.
func (r *Room) approvedBy(side Side, h SubjectHash) bool {
	if h == "" {
		return false
	}
	if r.Approval(side) == h {
		return true
	}
	_, onTable := r.Table.Find(h)
	return side == SideA && r.Preapproved && r.Table.By == SideA && onTable
}

func (r *Room) cardOption(me Party, tabler *Schema, t *Terms, fromThem bool, loc *time.Location) CardOption {
	o := CardOption{SubjectHash: t.Hash()}
	var breaches []Breach
	if fromThem {
		breaches = OutsideLimits(me.Schema, me.Limits, tabler, t)
	}
	for _, mine := range me.Schema.Fields() {
		theirs, ok := tabler.Field(mine.Name)
		vals, has := t.Values(mine.Name)
		if !ok || !Matches(mine, theirs) || !has {
			if !mine.Optional {
				o.Fields = append(o.Fields, CardField{Name: mine.Name, Label: mine.Label, Type: mine.Type, Missing: true,
					Shorthand: mine.Shorthand})
			}
			continue
		}
		cf := CardField{Name: mine.Name, Label: mine.Label, Type: mine.Type, Values: vals,
			Text: FormatValues(theirs, vals, loc), NoDeal: r.State != StateAgreed && contains(r.NoDeal, mine.Name),
			Shorthand: mine.Shorthand}
		for _, b := range breaches {
			if b.Field == mine.Name {
				cf.Outside = append(cf.Outside, b.Bound)
				o.Outside = true
			}
		}
		o.Fields = append(o.Fields, cf)
	}
	for _, theirs := range tabler.Fields() {
		mine, ok := me.Schema.Field(theirs.Name)
		vals, has := t.Values(theirs.Name)
		if !has || (ok && Matches(mine, theirs)) {
			continue
		}
		o.Fields = append(o.Fields, CardField{Name: theirs.Name, Label: theirs.Label, Theirs: true,
			Type: theirs.Type, Values: vals, Text: FormatValues(theirs, vals, loc), Shorthand: theirs.Shorthand})
	}
	return o
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// InvitersLabels marks every label on the card as the other side's words
// (TheirLabel), but Taasky's own name for the slots shorthand's field: for
// a person, who answers with the inviter's schema (DESIGN §4: labels
// written by the other party are shown as theirs). It returns c.
func (c *Card) InvitersLabels() *Card {
	if c != nil {
		for i := range c.Options {
			InvitersLabels(c.Options[i].Fields)
		}
	}
	return c
}

// InvitersLabels marks fields' labels as the other side's, as
// Card.InvitersLabels does.
func InvitersLabels(fields []CardField) {
	for i := range fields {
		fields[i].TheirLabel = !fields[i].Shorthand
	}
}

// Breaches lists the viewer's bounds the option's values break, field by
// field in the viewer's schema order, as OutsideLimits does; none on the
// viewer's own terms.
func (o *CardOption) Breaches() []Breach {
	var out []Breach
	for _, f := range o.Fields {
		for _, b := range f.Outside {
			out = append(out, Breach{Field: f.Name, Bound: b})
		}
	}
	return out
}

// TheirFields names the fields of theirs the option gives that the
// viewer's schema lacks (Theirs), in their schema's order.
func (o *CardOption) TheirFields() []string {
	var out []string
	for _, f := range o.Fields {
		if f.Theirs {
			out = append(out, f.Name)
		}
	}
	return out
}

// MissingFields names the viewer's required fields the option does not
// give (Missing), in the viewer's schema's order.
func (o *CardOption) MissingFields() []string {
	var out []string
	for _, f := range o.Fields {
		if f.Missing {
			out = append(out, f.Name)
		}
	}
	return out
}
