package form

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

// Field is one field of the schema as form controls: one Row per value
// (a repeated field has several), and the error that names it, if any.
type Field struct {
	Name  string
	Label string
	// Shorthand: Label is Taasky's English for the slots shorthand's
	// field; a person reads Label (locale.Printer.Label) instead.
	Shorthand bool
	Type      negotiation.Type
	Optional  bool
	Repeated  bool
	MaxLen    int
	Values    []string // enum
	Currency  string   // money: the fixed currency, if any
	Rows      []Row
	Error     string
	// Grown: the person asked for one more row here (Grow): the form
	// comes back open.
	Grown bool
	// sent is the row of each value Parse gave negotiation, in order: a
	// refusal's "slots[1]" is the second value sent, which is not the
	// second row when a row above it was left empty.
	sent []int
}

// fault sets the field's error and marks the row it is about (Index row),
// or every row when row < 0.
func (f *Field) fault(msg string, row int) {
	f.Error = msg
	for i := range f.Rows {
		if row < 0 || f.Rows[i].Index == row {
			f.Rows[i].Wrong = true
		}
	}
}

// rowOfValue is the row that held value k of those Parse sent.
func (f *Field) rowOfValue(k int) int {
	if k < len(f.sent) {
		return f.sent[k]
	}
	return k
}

// Row is the controls of one value; Index numbers the row in its inputs'
// names: f.<field>.<index>.<part>.
type Row struct {
	Index    int
	Value    string // string, int, enum, date; bool: "yes", "no" or ""
	Start    string // timerange, as datetime-local: 2026-12-03T10:00 (…:30.25 with seconds)
	End      string
	Zone     string // timerange: IANA time zone of Start and End
	Amount   string // money
	Currency string
	Wrong    bool // the row's value is at fault (Field.Error says why)
	// Added: Grow just added this row; its first control takes the
	// focus, so a keyboard or screen reader lands where the person
	// asked for room to type.
	Added bool
}

// Input is an input's name: f.<field>.<index>.<part>.
func Input(field string, i int, part string) string {
	return "f." + field + "." + strconv.Itoa(i) + "." + part
}

// RepeatedRows is how many rows an empty repeated field offers; its
// "add a row" button (MoreField) asks for more.
const RepeatedRows = 3

// MoreField names the button that asks for one more row of a repeated
// field (its value is the field's name) instead of sending the form: a
// page without a script offers as many rows as a person needs.
const MoreField = "more"

// CanGrow reports whether the field may get one more row.
func (f Field) CanGrow() bool { return f.Repeated && len(f.Rows) < negotiation.MaxRepeated }

// Grow adds an empty row to the repeated field named name, as the form
// was sent (Parse's fields); nothing was sent, so nothing is wrong yet:
// the errors go. It reports false when no such field may grow.
func Grow(fields []Field, name string) bool {
	for i := range fields {
		f := &fields[i]
		if f.Name != name || !f.CanGrow() {
			continue
		}
		row := Row{Currency: f.Currency, Added: true}
		if n := len(f.Rows); n > 0 {
			row.Index, row.Zone = f.Rows[n-1].Index+1, f.Rows[n-1].Zone
		}
		f.Rows, f.Grown = append(f.Rows, row), true
		for j := range fields {
			fields[j].Error = ""
			for k := range fields[j].Rows {
				fields[j].Rows[k].Wrong = false
			}
		}
		return true
	}
	return false
}

const localLayout = "2006-01-02T15:04"

// Empty is the form for schema, with zone preselected for moments.
func Empty(schema *negotiation.Schema, zone string) []Field {
	var out []Field
	for _, sf := range schema.Fields() {
		f := newField(sf)
		n := 1
		if sf.Repeated {
			n = RepeatedRows
		}
		for i := range n {
			f.Rows = append(f.Rows, Row{Index: i, Zone: zone, Currency: sf.Currency})
		}
		out = append(out, f)
	}
	return out
}

// Prefill is the form for schema holding the values of terms in that
// schema (values returns a field's values, ok false when it is absent),
// moments shown in loc, amounts as w's reader types them.
func Prefill(schema *negotiation.Schema, values func(field string) ([]negotiation.Value, bool), loc *time.Location, w *locale.Printer) []Field {
	fields := Empty(schema, loc.String())
	for fi := range fields {
		f := &fields[fi]
		sf, _ := schema.Field(f.Name)
		vals, ok := values(f.Name)
		if !ok || len(vals) == 0 {
			continue
		}
		f.Rows = nil
		for i := range vals {
			f.Rows = append(f.Rows, rowOf(sf, &vals[i], i, loc, w))
		}
		if f.Repeated && len(vals) < negotiation.MaxRepeated {
			f.Rows = append(f.Rows, Row{Index: len(vals), Zone: loc.String(), Currency: sf.Currency})
		}
	}
	return fields
}

// CardValues looks a field's values up in an option of a card.
func CardValues(o *negotiation.CardOption) func(string) ([]negotiation.Value, bool) {
	return func(name string) ([]negotiation.Value, bool) {
		if o == nil {
			return nil, false
		}
		for _, f := range o.Fields {
			if f.Name == name && !f.Missing && !f.Theirs {
				return f.Values, true
			}
		}
		return nil, false
	}
}

func newField(sf negotiation.Field) Field {
	return Field{Name: sf.Name, Label: sf.Label, Shorthand: sf.Shorthand, Type: sf.Type, Optional: sf.Optional, Repeated: sf.Repeated,
		MaxLen: sf.MaxLen, Values: sf.Values, Currency: sf.Currency}
}

func rowOf(sf negotiation.Field, v *negotiation.Value, i int, loc *time.Location, w *locale.Printer) Row {
	r := Row{Index: i, Zone: loc.String(), Currency: sf.Currency}
	switch sf.Type {
	case negotiation.TypeInt:
		r.Value = strconv.FormatInt(v.Int, 10)
	case negotiation.TypeBool:
		r.Value = "no"
		if v.Bool {
			r.Value = "yes"
		}
	case negotiation.TypeTimerange:
		r.Start, r.End = localValue(v.Start.In(loc)), localValue(v.End.In(loc))
		if !readsBack(r.Start, loc, v.Start) || !readsBack(r.End, loc, v.End) {
			// In the hour loc's clocks repeat, a wall clock is two moments,
			// which Parse refuses: the row is in UTC, which has one of each.
			r.Zone, r.Start, r.End = "UTC", localValue(v.Start.UTC()), localValue(v.End.UTC())
		}
	case negotiation.TypeMoney:
		digits, _ := negotiation.MinorDigits(v.Currency)
		r.Amount, r.Currency = w.AmountInput(v.Amount.StringFixed(int32(digits))), v.Currency
	default:
		r.Value = v.Text
	}
	return r
}

// Parse reads a submitted form into terms of schema. It returns the fields
// refilled with what was sent, each with its error in w's words, and ok
// when every field could be read (the terms are then for negotiation to
// validate).
func Parse(schema *negotiation.Schema, form url.Values, w *locale.Printer) (json.RawMessage, []Field, bool) {
	terms := map[string]any{}
	var fields []Field
	ok := true
	for _, sf := range schema.Fields() {
		f := newField(sf)
		var values []any
		for i := 0; i <= negotiation.MaxRepeated; i++ {
			row, present := readRow(sf, form, i)
			if !present {
				break
			}
			v, empty, msg := valueOf(sf, row, w)
			row.Wrong = msg != ""
			f.Rows = append(f.Rows, row)
			if msg != "" && f.Error == "" {
				f.Error = w.T("form.at", place(w.Label(sf.Label, sf.Shorthand), sf.Repeated, i), msg)
			}
			if !empty && msg == "" {
				values = append(values, v)
				f.sent = append(f.sent, i)
			}
			if !sf.Repeated {
				break
			}
		}
		if len(f.Rows) == 0 {
			f.Rows = []Row{{Currency: sf.Currency}}
		}
		switch {
		case f.Error != "":
			ok = false
		case len(values) == 0 && !sf.Optional && sf.Type != negotiation.TypeBool:
			f.fault(w.T("form.at", w.Label(sf.Label, sf.Shorthand), w.T("form.required")), -1)
			ok = false
		case len(values) == 0:
		case sf.Repeated:
			terms[sf.Name] = values
		default:
			terms[sf.Name] = values[0]
		}
		if sf.Type == negotiation.TypeBool && !sf.Optional && len(values) == 0 && f.Error == "" {
			terms[sf.Name] = false // an unticked box is "no"
		}
		fields = append(fields, f)
	}
	b, err := json.Marshal(terms)
	if err != nil {
		return nil, fields, false
	}
	return b, fields, ok
}

// place names where a value is wrong for a person: the field's label,
// and the row of a repeated field ("Slots (2)").
func place(label string, repeated bool, i int) string {
	if repeated {
		return fmt.Sprintf("%s (%d)", label, i+1)
	}
	return label
}

// readRow reads row i of a field; present is false when the form has none.
func readRow(sf negotiation.Field, form url.Values, i int) (Row, bool) {
	get := func(part string) (string, bool) {
		v, ok := form[Input(sf.Name, i, part)]
		if !ok || len(v) == 0 {
			return "", false
		}
		return v[0], true
	}
	r := Row{Index: i}
	var present bool
	switch sf.Type {
	case negotiation.TypeTimerange:
		var p1, p2, p3 bool
		r.Start, p1 = get("start")
		r.End, p2 = get("end")
		r.Zone, p3 = get("zone")
		present = p1 || p2 || p3
	case negotiation.TypeMoney:
		var p1, p2 bool
		r.Amount, p1 = get("amount")
		r.Currency, p2 = get("currency")
		if sf.Currency != "" {
			r.Currency = sf.Currency
		}
		present = p1 || p2
	case negotiation.TypeBool:
		r.Value, present = get("v")
		// An unticked checkbox sends nothing: the field's first row is
		// there all the same.
		present = present || (i == 0 && !sf.Repeated)
	default:
		r.Value, present = get("v")
	}
	return r, present
}

// valueOf is a row's JSON value; empty when nothing was entered; msg, in
// w's words, what is wrong with it.
func valueOf(sf negotiation.Field, r Row, w *locale.Printer) (v any, empty bool, msg string) {
	switch sf.Type {
	case negotiation.TypeInt:
		if r.Value == "" {
			return nil, true, ""
		}
		n, err := strconv.ParseInt(r.Value, 10, 64)
		if err != nil {
			return nil, false, w.T("form.whole_number")
		}
		// The number as JSON writes it: a browser's number box sends
		// "0005" as typed, and "0005" or "+5" is no JSON number (the terms
		// could not be written, and the form came back without a word).
		return json.Number(strconv.FormatInt(n, 10)), false, ""
	case negotiation.TypeBool:
		switch r.Value {
		case "yes":
			return true, false, ""
		case "no":
			return false, false, ""
		case "":
			return nil, true, ""
		}
		return nil, false, w.T("form.yes_or_no")
	case negotiation.TypeTimerange:
		return timerange(r, w)
	case negotiation.TypeMoney:
		if r.Amount == "" {
			return nil, true, ""
		}
		if r.Currency == "" {
			return nil, false, w.T("form.currency_required")
		}
		amount, ok := w.ReadAmount(r.Amount)
		if digits, known := negotiation.MinorDigits(r.Currency); !ok && known && digits == 0 {
			// "like 1500,50" would be refused next: JPY has no decimals.
			return nil, false, w.T("money18_form.whole_amount")
		} else if !ok {
			return nil, false, w.T("values.form.decimal_comma")
		}
		return map[string]string{"amount": amount, "currency": r.Currency}, false, ""
	}
	if r.Value == "" {
		return nil, true, ""
	}
	return r.Value, false, ""
}

func timerange(r Row, w *locale.Printer) (any, bool, string) {
	if r.Start == "" && r.End == "" {
		return nil, true, ""
	}
	if r.Start == "" || r.End == "" {
		return nil, false, w.T("form.start_and_end")
	}
	if r.Zone == "" {
		return nil, false, w.T("form.zone_required")
	}
	loc, err := tz.Load(r.Zone)
	if err != nil {
		return nil, false, w.T("form.zone_unknown", negotiation.Clip(r.Zone))
	}
	start, err := parseLocal(r.Start, loc)
	if errors.Is(err, errNotOneMoment) {
		return nil, false, w.T("form.start_not_one", r.Start, r.Zone)
	} else if err != nil {
		return nil, false, w.T("form.start_moment")
	}
	end, err := parseLocal(r.End, loc)
	if errors.Is(err, errNotOneMoment) {
		return nil, false, w.T("form.end_not_one", r.End, r.Zone)
	} else if err != nil {
		return nil, false, w.T("form.end_moment")
	}
	return map[string]string{"start": rfc3339(start), "end": rfc3339(end)}, false, ""
}

// rfc3339 writes t at its offset, or in UTC when that offset has seconds
// (local mean time: Berlin's +00:53:28 until 1893), which RFC 3339's
// offset, to the minute, cannot say: written "+00:53" it is another
// moment.
func rfc3339(t time.Time) string {
	if _, off := t.Zone(); off%60 != 0 {
		t = t.UTC()
	}
	return t.Format(time.RFC3339Nano)
}

// errNotOneMoment: a wall-clock time that names no moment in its zone (the
// time skipped when clocks go forward) or two (the time repeated when they
// go back). time.ParseInLocation would move the first and pick one of the
// second; nothing is coerced (DESIGN §2), so both are refused.
var errNotOneMoment = errors.New("not one moment in its zone")

// localValue writes t (in its zone) as a datetime-local value: to the
// minute, with its seconds and their fraction when it has any, so that a
// prefilled form sends back the moment it was given, not its minute.
func localValue(t time.Time) string {
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(localLayout)
	}
	return t.Format(localLayout + ":05.999999999")
}

// readsBack reports whether the datetime-local value s, read in loc, is
// the moment t.
func readsBack(s string, loc *time.Location, t time.Time) bool {
	back, err := parseLocal(s, loc)
	return err == nil && back.Equal(t)
}

// parseLocal reads a datetime-local value (seconds and their fraction
// optional) in loc: the one instant whose wall clock in loc is the value,
// else errNotOneMoment. Every offset loc has within 18 hours of the value
// (no zone's is 16 hours or more) is tried, whatever the size of the
// change between them: an hour, a day where a zone crossed the date line,
// or a few minutes or seconds where local mean time gave way to a
// standard offset (New York's clocks went back 3m58s in 1883, Amsterdam's
// forward 28s in 1937).
func parseLocal(s string, loc *time.Location) (time.Time, error) {
	wall, err := time.Parse(localLayout, s)
	if err != nil {
		// Go reads a fraction after the seconds without the layout's asking.
		if wall, err = time.Parse(localLayout+":05", s); err != nil {
			return wall, err
		}
	}
	var found []time.Time
	tried := map[int]bool{}
	try := func(at time.Time) {
		_, off := at.In(loc).Zone()
		if tried[off] {
			return
		}
		tried[off] = true
		// wall at offset off is a moment of loc's when loc is at off then.
		if t := wall.Add(-time.Duration(off) * time.Second).In(loc); offsetOf(t) == off {
			found = append(found, t)
		}
	}
	// Hour by hour, and the offsets just before and after each period met:
	// a period shorter than an hour is next to one that is met. A fixed
	// number of steps: ZoneBounds alone is no walk to trust (past tzdata's
	// last transition it can give a period's end before the time asked,
	// near the new year, and a walk by it never ended).
	for at := wall.Add(-18 * time.Hour); !at.After(wall.Add(18 * time.Hour)); at = at.Add(time.Hour) {
		try(at)
		start, end := at.In(loc).ZoneBounds()
		if !start.IsZero() {
			try(start.Add(-time.Nanosecond))
		}
		if !end.IsZero() {
			try(end)
		}
	}
	if len(found) != 1 {
		return wall, errNotOneMoment
	}
	return found[0], nil
}

func offsetOf(t time.Time) int {
	_, off := t.Zone()
	return off
}

var (
	leadingName = regexp.MustCompile(`^(missing required field: |unknown field: )?([a-z][a-z0-9_]*)((?:\[\d+\])?(?:\.[a-z_]+)*: )?`)
	// placeName reads a refusal's place: the field's name and the row of
	// a repeated one ("slots[1].start").
	placeName = regexp.MustCompile(`^([a-z][a-z0-9_]*)(?:\[(\d+)\])?(?:\.[a-z_]+)*$`)
	rowIndex  = regexp.MustCompile(`^\[(\d+)\]`)
)

// Attach puts a refusal of terms from negotiation (its English message and
// its words) beside the field it names, as a person reads it: the field's
// label, with the row of a repeated field, where the refusal has the
// field's path ("fee.amount", "slots[1]"), and the rule in w's language.
// It reports false when the refusal names no field of the form (show it
// above the form then).
func Attach(fields []Field, msg string, words negotiation.Words, w *locale.Printer) bool {
	if words.Key == "" || !locale.Has(locale.Key(words.Key)) {
		return attachEnglish(fields, msg, w)
	}
	at, rule := words.At, w.Rule(msg, words)
	if words.Key == "rule.missing_field" && len(words.Args) == 1 {
		at, rule = fmt.Sprint(words.Args[0]), w.T("form.required")
	}
	m := placeName.FindStringSubmatch(at)
	if m == nil {
		return false
	}
	for i := range fields {
		if fields[i].Name != m[1] {
			continue
		}
		f := &fields[i]
		row := -1
		if m[2] != "" {
			k, _ := strconv.Atoi(m[2])
			row = f.rowOfValue(k)
		}
		f.fault(w.T("form.at", place(w.Label(f.Label, f.Shorthand), row >= 0, row), rule), row)
		return true
	}
	return false
}

// attachEnglish is Attach for a refusal the catalog has no words for: the
// field's path in its message ("fee.amount: …") written as its label.
func attachEnglish(fields []Field, msg string, w *locale.Printer) bool {
	m := leadingName.FindStringSubmatch(strings.TrimSpace(msg))
	if m == nil {
		return false
	}
	for i := range fields {
		f := &fields[i]
		if f.Name != m[2] {
			continue
		}
		row := -1
		if r := rowIndex.FindStringSubmatch(m[3]); r != nil {
			k, _ := strconv.Atoi(r[1])
			row = f.rowOfValue(k)
		}
		switch {
		case m[1] == "missing required field: ":
			f.fault(w.T("form.at", w.Label(f.Label, f.Shorthand), w.T("form.required")), -1)
		case m[3] != "":
			f.fault(w.T("form.at", place(w.Label(f.Label, f.Shorthand), row >= 0, row), strings.TrimSpace(msg)[len(m[0]):]), row)
		default:
			f.fault(msg, -1)
		}
		return true
	}
	return false
}
