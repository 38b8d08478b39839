package negotiation

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"
)

// No deal possible is told at the join without either number, but one
// verdict is still one bit of the other side's limit. Two accounts that
// meet in room after room could move one side's bound a step each time
// while the other side's agent joins with the same limits, and bisect
// them (seed 000: "If a bound could be moved and asked again, the other
// side's number could be found out one step at a time"). So between the
// same two accounts, within NoDealMarksKept, a field's verdict is
// withheld — nobody is told, and nothing says so — when one side's limit
// on it is one it declared there before and the other side's is not; and
// when the two limits were not told together before while either was
// told with another (moving a bound in one room and declaring it again in
// the next must not tell what the first room withheld). First rooms, and
// rooms where both limits are as before or both are new, are told.
//
// The rule compares marks, not limits: the service keeps, per join, a
// keyed mark (an HMAC the database alone cannot test a guess against) of
// each side's limit on each shared field, and passes them here. The core
// sees only whether two marks are equal.

// NoDealMarksKept is how long a join's marks count for the rooms after it
// between the same two accounts (and are kept: the service purges older
// ones).
const NoDealMarksKept = 30 * 24 * time.Hour

// NoDealField is a field both sides' schemas hold (Matches) and at least
// one side limits: the fields a join keeps marks of. Key names it across
// rooms (name and type: a field of another type is another field; a
// money limit's currency is in its LimitText).
type NoDealField struct {
	Key    string
	Limits [2][]byte // LimitText of side a's and side b's limit on it
}

// NoDealFields are the fields of a joined room whose verdict a join
// keeps marks of, in side a's schema order, with each side's LimitText.
func (r *Room) NoDealFields() []NoDealField {
	a, b := r.Parties[0], r.Parties[1]
	if a.Schema == nil || b.Schema == nil {
		return nil
	}
	var out []NoDealField
	for _, fa := range a.Schema.Fields() {
		fb, ok := b.Schema.Field(fa.Name)
		if !ok || !Matches(fa, fb) {
			continue
		}
		la, okA := a.Limits.Get(fa.Name)
		lb, okB := b.Limits.Get(fb.Name)
		if !okA && !okB {
			continue
		}
		out = append(out, NoDealField{Key: fa.Name + ":" + string(fa.Type), Limits: [2][]byte{LimitText(fa, la), LimitText(fb, lb)}})
	}
	return out
}

// LimitText writes a limit on f (nil: none) so that two limits Same holds
// equal are written the same (100 and 100.00 EUR, one_of in any order,
// moments with any offset), and two others are not. It is what a mark is
// made of; it is secret (the limit itself) and never stored or shown.
func LimitText(f Field, lim *Limit) []byte {
	buf := []byte("limit\x00" + f.Name + "\x00" + string(f.Type) + "\x00")
	if lim == nil {
		return append(buf, "none"...)
	}
	for _, b := range []struct {
		name string
		v    *Value
	}{{"min", lim.Min}, {"max", lim.Max}} {
		if b.v != nil {
			buf = append(append(append(buf, b.name...), '='), FormatBound(f, b.v)...)
			buf = append(buf, '\x00')
		}
	}
	if lim.OneOf != nil {
		vals := slices.Clone(lim.OneOf)
		slices.Sort(vals)
		vals = slices.Compact(vals)
		buf = append(append(buf, "one_of="...), strings.Join(vals, "\x01")...)
		buf = append(buf, '\x00')
	}
	if lim.Equals != nil {
		buf = strconv.AppendBool(append(buf, "equals="...), *lim.Equals)
	}
	return buf
}

// NoDealMark is what the join of an earlier room between the same two
// accounts kept of one field: a mark of each side's limit, placed as this
// room's sides (a: this room's opener), and whether its verdict was told.
type NoDealMark struct {
	Key   string
	Marks [2][]byte
	Told  bool
}

// FieldMarks are this room's marks of one NoDealField: per side, the mark
// kept now first, then the same limit's marks under keys from before (a
// rotation of the server's secret), which find marks kept earlier.
type FieldMarks struct {
	Key   string
	Marks [2][][]byte
}

// WithheldNoDeal names the keys of the fields whose verdict this room
// withholds, given its marks and those of the earlier rooms between the
// same two accounts (within NoDealMarksKept: the caller passes only
// those).
func WithheldNoDeal(now []FieldMarks, before []NoDealMark) []string {
	var out []string
	for _, f := range now {
		if withheld(f, before) {
			out = append(out, f.Key)
		}
	}
	return out
}

func withheld(f FieldMarks, before []NoDealMark) bool {
	var same, toldWith [2]bool
	toldTogether := false
	for _, m := range before {
		if m.Key != f.Key {
			continue
		}
		a, b := anyEqual(f.Marks[0], m.Marks[0]), anyEqual(f.Marks[1], m.Marks[1])
		same[0], same[1] = same[0] || a, same[1] || b
		if m.Told {
			toldWith[0], toldWith[1] = toldWith[0] || a, toldWith[1] || b
			toldTogether = toldTogether || a && b
		}
	}
	// One side as before, the other moved: its verdict tells the moved
	// side where the unmoved one's bound is.
	if same[0] != same[1] {
		return true
	}
	// Both as before, but never told together: telling them now would
	// tell what an earlier room withheld.
	return !toldTogether && (toldWith[0] || toldWith[1])
}

func anyEqual(marks [][]byte, m []byte) bool {
	return slices.ContainsFunc(marks, func(x []byte) bool { return bytes.Equal(x, m) })
}

// WithholdNoDeal leaves the fields keyed in keys out of the room's
// NoDeal (a join's, before it is stored): nobody is told of them.
func (r *Room) WithholdNoDeal(keys []string) {
	var names []string
	for _, name := range r.NoDeal {
		if f, ok := r.Parties[0].Schema.Field(name); ok && slices.Contains(keys, name+":"+string(f.Type)) {
			names = append(names, name)
		}
	}
	r.WithholdNoDealFields(names)
}

// WithholdNoDealFields moves the named fields from NoDeal to
// NoDealWithheld. The replay of a room's log computes NoDeal from both
// limits, without the earlier rooms' marks: a checker applies the stored
// room's NoDealWithheld to it.
func (r *Room) WithholdNoDealFields(names []string) {
	for _, name := range names {
		if i := slices.Index(r.NoDeal, name); i >= 0 {
			r.NoDeal = slices.Delete(slices.Clone(r.NoDeal), i, i+1)
			r.NoDealWithheld = append(slices.Clone(r.NoDealWithheld), name)
		}
	}
	if len(r.NoDeal) == 0 {
		r.NoDeal = nil
	}
}
