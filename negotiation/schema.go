package negotiation

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Type is the type of a schema field (seed 000, "Field types").
type Type string

const (
	TypeString    Type = "string"
	TypeInt       Type = "int"
	TypeBool      Type = "bool"
	TypeEnum      Type = "enum"
	TypeTimerange Type = "timerange"
	TypeDate      Type = "date"
	TypeMoney     Type = "money"
)

var types = []Type{TypeString, TypeInt, TypeBool, TypeEnum, TypeTimerange, TypeDate, TypeMoney}

// Limits of a schema declaration.
const (
	MaxFields      = 24
	MaxLabel       = 80
	MinEnumValues  = 2
	MaxEnumValues  = 32
	MaxEnumValue   = 40
	MaxStringLen   = 500
	MaxRepeated    = 50
	MaxSchemaBytes = 64 << 10
	MaxTermsBytes  = 256 << 10
)

var fieldName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// Field is one declared field of a subject_schema.
type Field struct {
	Name     string
	Type     Type
	Label    string
	Optional bool
	Repeated bool
	MaxLen   int      // string only: the longest value in characters
	Values   []string // enum only
	Currency string   // money only: the fixed currency, if any
	// Shorthand marks the field of the schema Taasky writes for a room
	// opened with slots (SlotsSchema): its Label is Taasky's English, not
	// a party's words, so a person reads it in their own language. It is
	// no part of the schema's canonical form or of any hash.
	Shorthand bool
}

// Schema is a validated subject_schema: the fields one party's terms are made of.
type Schema struct {
	fields    []Field // in declaration order
	sorted    []int   // indexes of fields by name, the canonical order
	canonical []byte
	repeated  int // how many fields are repeated
}

// Fields returns the fields in the order they were declared.
func (s *Schema) Fields() []Field { return s.fields }

// Field returns the field named name.
func (s *Schema) Field(name string) (Field, bool) {
	if s == nil {
		return Field{}, false // a side that declared none yet
	}
	for i := range s.fields {
		if s.fields[i].Name == name {
			return s.fields[i], true
		}
	}
	return Field{}, false
}

// Canonical is the schema in RFC 8785 form (fields in name order): what
// Fingerprint hashes.
func (s *Schema) Canonical() []byte { return s.canonical }

// Declared is the schema normalized like Canonical but with its fields in
// the order they were declared, the order cards show them in. Parsing it
// gives the same schema; it is what rooms store.
func (s *Schema) Declared() []byte {
	order := make([]int, len(s.fields))
	for i := range order {
		order[i] = i
	}
	return s.appendFields(nil, order)
}

// Fingerprint identifies the schema's content, to tell whether an account
// has seen it before.
func (s *Schema) Fingerprint() SubjectHash { return hashOf(s.canonical) }

// slotsCanonical is SlotsSchema in canonical form. A schema with exactly
// this content is the shorthand's, whoever declared it: a peer joining a
// slots room with the inviter's schema declares it too, and an agent that
// wrote it out by hand wrote Taasky's words.
const slotsCanonical = `{"meeting_time":{"label":"Meeting time","type":"timerange"}}`

// SlotsSchema is the schema a room opened with `slots` uses.
func SlotsSchema() *Schema {
	s, _, err := ParseSchema([]byte(slotsCanonical))
	if err != nil {
		panic(err)
	}
	return s
}

// IsSlots says whether the schema is SlotsSchema, the one whose label
// Taasky wrote.
func (s *Schema) IsSlots() bool { return s != nil && string(s.canonical) == slotsCanonical }

func schemaErr(format string, args ...any) *Error {
	return errf(CodeInvalidSchema, fmt.Sprintf(format, args...))
}

// ParseSchema reads a subject_schema strictly: every rule of seed 000, no
// unknown keys, no option on a type it does not apply to. Warnings are
// advice the schema goes against ("keep it small"); they refuse nothing.
func ParseSchema(data []byte) (*Schema, []string, error) {
	if len(data) > MaxSchemaBytes {
		return nil, nil, schemaErr("subject_schema is larger than %d bytes", MaxSchemaBytes)
	}
	r := pooledReader()
	defer r.release()
	root, err := r.parse(data)
	if err != nil {
		return nil, nil, schemaErr("subject_schema: %v", err)
	}
	if root.kind != kindObject {
		return nil, nil, schemaErr("subject_schema must be an object of fields")
	}
	if len(root.members) == 0 {
		return nil, nil, schemaErr("subject_schema needs at least one field")
	}
	if len(root.members) > MaxFields {
		return nil, nil, schemaErr("subject_schema has %d fields; at most %d", len(root.members), MaxFields)
	}
	s := &Schema{}
	for _, m := range root.members {
		f, err := parseField(m.key, &m.val)
		if err != nil {
			return nil, nil, err
		}
		s.fields = append(s.fields, f)
		if f.Repeated {
			s.repeated++
		}
	}
	s.sorted = make([]int, len(s.fields))
	for i := range s.sorted {
		s.sorted[i] = i
	}
	slices.SortFunc(s.sorted, func(a, b int) int { return strings.Compare(s.fields[a].Name, s.fields[b].Name) })
	s.canonical = s.appendFields(nil, s.sorted)
	if s.IsSlots() {
		s.fields[0].Shorthand = true
	}
	return s, schemaWarnings(s), nil
}

func parseField(name string, n *node) (Field, error) {
	if !fieldName.MatchString(name) {
		return Field{}, schemaErr("field name %q: use lowercase letters, digits and _, starting with a letter, at most 32 characters", Clip(name))
	}
	if n.kind != kindObject {
		return Field{}, schemaErr("%s: must be an object with type and label", name)
	}
	f := Field{Name: name}
	t, ok := n.get("type")
	if !ok {
		return Field{}, schemaErr("%s: type is required", name)
	}
	if t.kind != kindString || !slices.Contains(types, Type(t.s)) {
		return Field{}, schemaErr("%s: type must be one of string, int, bool, enum, timerange, date, money", name)
	}
	f.Type = Type(t.s)
	label, ok := n.get("label")
	if !ok {
		return Field{}, schemaErr("%s: label is required", name)
	}
	if label.kind != kindString || utf8.RuneCountInString(label.s) < 1 || utf8.RuneCountInString(label.s) > MaxLabel {
		return Field{}, schemaErr("%s: label must be a string of 1 to %d characters", name, MaxLabel)
	}
	if !validText(label.s, false) || strings.TrimSpace(label.s) == "" {
		return Field{}, schemaErr("%s: label must be readable text, without control characters", name)
	}
	f.Label = label.s
	for _, m := range n.members {
		v := &m.val
		switch m.key {
		case "type", "label":
		case "optional", "repeated":
			if v.kind != kindBool {
				return Field{}, schemaErr("%s: %s must be true or false", name, m.key)
			}
			if m.key == "optional" {
				f.Optional = v.b
			} else {
				f.Repeated = v.b
			}
		case "max_len":
			if f.Type != TypeString {
				return Field{}, schemaErr("%s: max_len applies only to string fields", name)
			}
			l, err := strconv.Atoi(v.s)
			if v.kind != kindNumber || err != nil || l < 1 || l > MaxStringLen {
				return Field{}, schemaErr("%s: max_len must be a whole number from 1 to %d", name, MaxStringLen)
			}
			f.MaxLen = l
		case "values":
			if f.Type != TypeEnum {
				return Field{}, schemaErr("%s: values applies only to enum fields", name)
			}
			if v.kind != kindArray || len(v.items) < MinEnumValues || len(v.items) > MaxEnumValues {
				return Field{}, schemaErr("%s: values must be a list of %d to %d strings", name, MinEnumValues, MaxEnumValues)
			}
			for i, it := range v.items {
				if it.kind != kindString || utf8.RuneCountInString(it.s) < 1 || utf8.RuneCountInString(it.s) > MaxEnumValue || !validText(it.s, false) {
					return Field{}, schemaErr("%s: values[%d] must be a string of 1 to %d characters", name, i, MaxEnumValue)
				}
				if slices.Contains(f.Values, it.s) {
					return Field{}, schemaErr("%s: values lists %q twice", name, it.s)
				}
				f.Values = append(f.Values, it.s)
			}
		case "currency":
			if f.Type != TypeMoney {
				return Field{}, schemaErr("%s: currency applies only to money fields", name)
			}
			if v.kind == kindString && iso4217NoMinorUnit[v.s] {
				return Field{}, schemaErr("%s: currency %q has no minor unit in ISO 4217: no amount can be written in it", name, v.s)
			}
			if _, ok := MinorDigits(v.s); v.kind != kindString || !ok {
				return Field{}, schemaErr("%s: currency must be an ISO 4217 code like EUR", name)
			}
			f.Currency = v.s
		default:
			return Field{}, schemaErr("%s: unknown option: %s", name, Clip(m.key))
		}
	}
	if f.Type == TypeEnum && f.Values == nil {
		return Field{}, schemaErr("%s: an enum needs values", name)
	}
	if f.Type == TypeString && f.MaxLen == 0 {
		f.MaxLen = MaxStringLen
	}
	return f, nil
}

// Clip shortens text echoed back in a message to 40 characters and "…".
func Clip(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}

func (s *Schema) appendFields(buf []byte, order []int) []byte {
	buf = append(buf, '{')
	for i, fi := range order {
		f := &s.fields[fi]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJCSString(buf, f.Name)
		buf = append(buf, ':', '{')
		// Keys in sorted order: currency, label, max_len, optional, repeated, type, values.
		if f.Currency != "" {
			buf = append(buf, `"currency":`...)
			buf = appendJCSString(buf, f.Currency)
			buf = append(buf, ',')
		}
		buf = append(buf, `"label":`...)
		buf = appendJCSString(buf, f.Label)
		if f.Type == TypeString && f.MaxLen != MaxStringLen {
			buf = append(buf, `,"max_len":`...)
			buf = appendJCSInt(buf, int64(f.MaxLen))
		}
		if f.Optional {
			buf = append(buf, `,"optional":true`...)
		}
		if f.Repeated {
			buf = append(buf, `,"repeated":true`...)
		}
		buf = append(buf, `,"type":`...)
		buf = appendJCSString(buf, string(f.Type))
		if f.Values != nil {
			buf = append(buf, `,"values":[`...)
			for j, v := range f.Values {
				if j > 0 {
					buf = append(buf, ',')
				}
				buf = appendJCSString(buf, v)
			}
			buf = append(buf, ']')
		}
		buf = append(buf, '}')
	}
	return append(buf, '}')
}
