package negotiation

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Bound names the part of a limit a value breaks. It is all the other side
// ever learns of a limit: never its number.
type Bound string

const (
	BoundMin    Bound = "min"
	BoundMax    Bound = "max"
	BoundOneOf  Bound = "one_of"
	BoundEquals Bound = "equals"
)

// Limit is one party's private bounds on one field of its own schema.
type Limit struct {
	Field  Field
	Min    *Value   // int, date, money; for a timerange: the earliest start (in Start)
	Max    *Value   // int, date, money; for a timerange: the latest end (in Start)
	OneOf  []string // enum
	Equals *bool    // bool
}

// Limits are a party's private limits, validated against its own schema.
// They are fixed once declared.
type Limits struct {
	list []Limit // in the schema's field order
	raw  []byte
}

// Raw is the limits as declared (validated), for encrypted storage.
func (l *Limits) Raw() []byte { return l.raw }

// Same says whether l and o bound the same fields the same way (however
// they were written: 100 and 100.00 EUR, one_of in any order, offsets).
func (l *Limits) Same(o *Limits) bool {
	a, b := l.List(), o.List()
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Field.Name != y.Field.Name || !sameBound(x.Field.Type, x.Min, y.Min) || !sameBound(x.Field.Type, x.Max, y.Max) ||
			(x.Equals == nil) != (y.Equals == nil) || x.Equals != nil && *x.Equals != *y.Equals || len(x.OneOf) != len(y.OneOf) {
			return false
		}
		for _, v := range x.OneOf {
			if !slices.Contains(y.OneOf, v) {
				return false
			}
		}
	}
	return true
}

func sameBound(t Type, a, b *Value) bool {
	if a == nil || b == nil {
		return a == b
	}
	c, ok := compareBound(t, a, b)
	return ok && c == 0
}

// List returns the limits in the schema's field order.
func (l *Limits) List() []Limit {
	if l == nil {
		return nil
	}
	return l.list
}

// Get returns the limit on a field.
func (l *Limits) Get(field string) (*Limit, bool) {
	if l == nil {
		return nil, false
	}
	for i := range l.list {
		if l.list[i].Field.Name == field {
			return &l.list[i], true
		}
	}
	return nil, false
}

func limitsErr(format string, args ...any) *Error {
	return errf(CodeInvalidLimits, fmt.Sprintf(format, args...))
}

// ParseLimits reads limits strictly against the declaring party's own
// schema. Empty input (or null, or {}) means no limits.
func (s *Schema) ParseLimits(data []byte) (*Limits, error) {
	l := &Limits{}
	if len(strings.TrimSpace(string(data))) == 0 {
		l.raw = []byte("{}")
		return l, nil
	}
	if len(data) > MaxSchemaBytes {
		return nil, limitsErr("limits are larger than %d bytes", MaxSchemaBytes)
	}
	r := pooledReader()
	defer r.release()
	root, err := r.parse(data)
	if err != nil {
		return nil, limitsErr("limits: %v", err)
	}
	if root.kind == kindNull {
		l.raw = []byte("{}")
		return l, nil
	}
	if root.kind != kindObject {
		return nil, limitsErr("limits must be an object of fields")
	}
	for i := range root.members {
		m := &root.members[i]
		f, ok := s.Field(m.key)
		if !ok {
			return nil, limitsErr("limits: unknown field: %s (limits apply to your own schema's fields)", Clip(m.key))
		}
		lim, err := parseLimit(f, &m.val)
		if err != nil {
			return nil, err
		}
		l.list = append(l.list, lim)
	}
	slices.SortFunc(l.list, func(a, b Limit) int { return s.index(a.Field.Name) - s.index(b.Field.Name) })
	l.raw = append([]byte(nil), data...)
	return l, nil
}

func (s *Schema) index(name string) int {
	for i := range s.fields {
		if s.fields[i].Name == name {
			return i
		}
	}
	return -1
}

func boundsOf(t Type) string {
	switch t {
	case TypeEnum:
		return "one_of"
	case TypeBool:
		return "equals"
	default:
		return "min and/or max"
	}
}

// article is the English article before a type's name: "an int", "a date".
func article(t Type) string {
	if t == TypeInt || t == TypeEnum {
		return "an"
	}
	return "a"
}

func parseLimit(f Field, n *node) (Limit, error) {
	name := "limits." + f.Name
	if f.Type == TypeString {
		return Limit{}, limitsErr("%s: string fields take no limits", name)
	}
	if n.kind != kindObject || len(n.members) == 0 {
		return Limit{}, limitsErr("%s: must be an object with %s", name, boundsOf(f.Type))
	}
	lim := Limit{Field: f}
	for i := range n.members {
		m := &n.members[i]
		path := name + "." + m.key
		switch {
		case (m.key == "min" || m.key == "max") && f.Type != TypeEnum && f.Type != TypeBool:
			v, err := f.parseBound(path, &m.val)
			if err != nil {
				return Limit{}, err
			}
			if m.key == "min" {
				lim.Min = &v
			} else {
				lim.Max = &v
			}
		case m.key == "one_of" && f.Type == TypeEnum:
			if m.val.kind != kindArray || len(m.val.items) == 0 {
				return Limit{}, limitsErr("%s: must be a non-empty list of the field's values", path)
			}
			for _, it := range m.val.items {
				if it.kind != kindString || !slices.Contains(f.Values, it.s) {
					return Limit{}, limitsErr("%s: %s is not one of %s", path, Clip(it.s), strings.Join(f.Values, ", "))
				}
				if slices.Contains(lim.OneOf, it.s) {
					return Limit{}, limitsErr("%s: lists %q twice", path, it.s)
				}
				lim.OneOf = append(lim.OneOf, it.s)
			}
		case m.key == "equals" && f.Type == TypeBool:
			if m.val.kind != kindBool {
				return Limit{}, limitsErr("%s: must be true or false", path)
			}
			b := m.val.b
			lim.Equals = &b
		default:
			return Limit{}, limitsErr("%s: unknown bound: %s (%s %s field takes %s)", name, Clip(m.key), article(f.Type), f.Type, boundsOf(f.Type))
		}
	}
	if lim.Min != nil && lim.Max != nil {
		c, comparable := compareBound(f.Type, lim.Min, lim.Max)
		if !comparable {
			return Limit{}, limitsErr("%s: min and max must be in the same currency", name)
		}
		if c > 0 || (c == 0 && f.Type == TypeTimerange) {
			return Limit{}, limitsErr("%s: min must be before max", name)
		}
	}
	return lim, nil
}

// parseBound reads a min or max in the field's value shape; for a
// timerange, a bound is one moment.
func (f *Field) parseBound(path string, n *node) (Value, error) {
	var v Value
	var err error
	switch f.Type {
	case TypeTimerange:
		v.Start, err = parseMoment(path, "", n)
	case TypeMoney:
		v, err = f.parseMoney(path, n)
	default:
		v, err = f.parseValue(path, n)
	}
	if e := (*Error)(nil); errors.As(err, &e) {
		return Value{}, limitsErr("%s", e.Message)
	}
	return v, err
}

// compareBound orders two values of a field type (-1, 0, 1); false when
// they cannot be compared (money in two currencies).
func compareBound(t Type, a, b *Value) (int, bool) {
	switch t {
	case TypeInt:
		return cmpInt(a.Int, b.Int), true
	case TypeDate, TypeTimerange:
		return a.Start.Compare(b.Start), true
	case TypeMoney:
		if a.Currency != b.Currency {
			return 0, false
		}
		return a.Amount.Cmp(b.Amount), true
	}
	return 0, false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// onlyOne reports whether l leaves s's terms one choice: every field
// required, single, and held to one value by its limit. A field terms may
// leave out, a list (one value or two), a string or a timerange always
// leaves more; no limit leaves none.
func (l *Limits) onlyOne(s *Schema) bool {
	for _, f := range s.Fields() {
		lim, ok := l.Get(f.Name)
		if f.Optional || f.Repeated || !ok {
			return false
		}
		switch f.Type {
		case TypeEnum:
			ok = len(lim.OneOf) == 1
		case TypeBool:
			ok = lim.Equals != nil
		case TypeInt, TypeDate, TypeMoney:
			ok = lim.Min != nil && lim.Max != nil && sameBound(f.Type, lim.Min, lim.Max)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// check returns the bounds one value breaks.
func (lim *Limit) check(v *Value) []Bound {
	var out []Bound
	lo, hi := v, v
	if lim.Field.Type == TypeTimerange {
		hi = &Value{Start: v.End} // no start before min, no end after max
	}
	if lim.Min != nil {
		if c, ok := compareBound(lim.Field.Type, lo, lim.Min); !ok || c < 0 {
			out = append(out, BoundMin)
		}
	}
	if lim.Max != nil {
		if c, ok := compareBound(lim.Field.Type, hi, lim.Max); !ok || c > 0 {
			out = append(out, BoundMax)
		}
	}
	if lim.OneOf != nil && !slices.Contains(lim.OneOf, v.Text) {
		out = append(out, BoundOneOf)
	}
	if lim.Equals != nil && *lim.Equals != v.Bool {
		out = append(out, BoundEquals)
	}
	return out
}

// Breach is one of the other side's values outside one of my bounds.
type Breach struct {
	Field string `json:"field"`
	Bound Bound  `json:"bound"`
}

// checkValues returns the distinct bounds any of a field's values breaks.
func (lim *Limit) checkValues(vals []Value) []Bound {
	var out []Bound
	for i := range vals {
		for _, b := range lim.check(&vals[i]) {
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}

// CheckOwn refuses a party's own terms that break its own limits. The
// message names the bound: it is the party's own.
func (l *Limits) CheckOwn(t *Terms) error {
	for i := range l.List() {
		lim := &l.list[i]
		vals, ok := t.Values(lim.Field.Name)
		if !ok {
			continue
		}
		for j := range vals {
			for _, b := range lim.check(&vals[j]) {
				return lim.outside(b)
			}
		}
	}
	return nil
}

// outside refuses own terms beyond the bound b of lim, naming the bound,
// number included: the limit is the party's own.
func (lim *Limit) outside(b Bound) *Error {
	at := lim.Field.Name
	switch b {
	case BoundMin:
		return ruleErr(CodeOutsideOwnLimits, at, "rule.outside_min", "outside your limits (min %s)", FormatBound(lim.Field, lim.Min))
	case BoundMax:
		return ruleErr(CodeOutsideOwnLimits, at, "rule.outside_max", "outside your limits (max %s)", FormatBound(lim.Field, lim.Max))
	case BoundOneOf:
		return ruleErr(CodeOutsideOwnLimits, at, "rule.outside_one_of", "outside your limits (one of %s)", strings.Join(lim.OneOf, ", "))
	default:
		return ruleErr(CodeOutsideOwnLimits, at, "rule.outside_equals", "outside your limits (must be %s)", strconv.FormatBool(*lim.Equals))
	}
}

// FormatBound writes a bound value as it is declared (moments in UTC, as
// the canonical form writes them: with their fraction of a second, if
// any, so that a bound of 11:00:00.5 is not told as 11:00:00).
func FormatBound(f Field, v *Value) string {
	switch f.Type {
	case TypeTimerange:
		return string(appendMoment(nil, v.Start.UTC()))
	default:
		return string(f.appendValueText(nil, v))
	}
}

// Matches reports whether two fields of two schemas are the same field:
// same name and type, and for money no two different fixed currencies.
func Matches(mine, theirs Field) bool {
	if mine.Name != theirs.Name || mine.Type != theirs.Type {
		return false
	}
	return mine.Type != TypeMoney || mine.Currency == "" || theirs.Currency == "" || mine.Currency == theirs.Currency
}

// OutsideLimits checks the other side's terms against my limits, field by
// field across the two schemas. It says which bound, never a number.
func OutsideLimits(mine *Schema, myLimits *Limits, theirs *Schema, terms *Terms) []Breach {
	var out []Breach
	for i := range myLimits.List() {
		lim := &myLimits.list[i]
		tf, ok := theirs.Field(lim.Field.Name)
		if !ok || !Matches(lim.Field, tf) {
			continue
		}
		vals, ok := terms.Values(tf.Name)
		if !ok {
			continue
		}
		for _, b := range lim.checkValues(vals) {
			out = append(out, Breach{Field: lim.Field.Name, Bound: b})
		}
	}
	return out
}

// NoDealPossible names the fields both schemas share (same name and type)
// on which the two parties' limits cannot both be met by any value. Only
// Taasky can say this: it sees both limits and reveals neither.
func NoDealPossible(sa *Schema, la *Limits, sb *Schema, lb *Limits) []string {
	var out []string
	for _, fa := range sa.Fields() {
		fb, ok := sb.Field(fa.Name)
		if !ok || !Matches(fa, fb) {
			continue
		}
		// Both sides' limits (one side's alone is checked when it is set).
		a, okA := la.Get(fa.Name)
		b, okB := lb.Get(fb.Name)
		if okA && okB && disjoint(a, b) {
			out = append(out, fa.Name)
		}
	}
	slices.Sort(out)
	return out
}

func disjoint(a, b *Limit) bool {
	t := a.Field.Type
	switch t {
	case TypeEnum:
		// Both sides' limits (seed 000): a schema's values are its own
		// terms' vocabulary, not a bound on the other side's terms, which
		// follow their own schema.
		if a.OneOf == nil || b.OneOf == nil {
			return false
		}
		for _, v := range a.OneOf {
			if slices.Contains(b.OneOf, v) {
				return false
			}
		}
		return true
	case TypeBool:
		return a.Equals != nil && b.Equals != nil && *a.Equals != *b.Equals
	}
	if t == TypeMoney && a.currency() != b.currency() {
		// An amount is in one currency, and one in another currency than
		// a bound is outside it (check): no amount meets bounds in two.
		// (Listed since 2026-12-06: Room.NoDealInTwoCurrencies.)
		return true
	}
	lo := later(t, a.Min, b.Min)
	hi := earlier(t, a.Max, b.Max)
	if lo == nil || hi == nil {
		return false
	}
	c, ok := compareBound(t, lo, hi)
	if !ok {
		return false
	}
	if t == TypeTimerange {
		return c >= 0 // a timerange needs room: its end is after its start
	}
	return c > 0
}

// NoDealInTwoCurrencies are the fields of NoDeal listed because both sides
// bound the money field in two currencies. NoDeal is computed at the join,
// once; a room joined before 2026-12-06 did not list these (two currencies
// were not compared), and keeps its NoDeal without them.
func (r *Room) NoDealInTwoCurrencies() []string {
	var out []string
	for _, name := range r.NoDeal {
		a, okA := r.Parties[0].Limits.Get(name)
		b, okB := r.Parties[1].Limits.Get(name)
		if okA && okB && a.Field.Type == TypeMoney && a.currency() != b.currency() {
			out = append(out, name)
		}
	}
	return out
}

// currency is the currency of a money limit's bounds (min and max share
// one: ParseLimits), "" for a limit without either.
func (lim *Limit) currency() string {
	switch {
	case lim.Min != nil:
		return lim.Min.Currency
	case lim.Max != nil:
		return lim.Max.Currency
	}
	return ""
}

func later(t Type, x, y *Value) *Value {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	if c, ok := compareBound(t, x, y); ok && c < 0 {
		return y
	}
	return x
}

func earlier(t Type, x, y *Value) *Value {
	if x == nil {
		return y
	}
	if y == nil {
		return x
	}
	if c, ok := compareBound(t, x, y); ok && c > 0 {
		return y
	}
	return x
}
