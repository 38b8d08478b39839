package negotiation

import (
	"strings"
)

// Fault is one broken rule of an input, for a refusal that names them all
// at once: the field (its path, as in the message), the rule, and the one
// line that says it.
type Fault struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Words          // Message for a catalog; not part of the JSON
}

// The rules a Fault names.
const (
	RuleUnknownField  = "unknown_field"       // a field the mover's schema does not have
	RuleMissingField  = "missing_field"       // a required field left out
	RuleInvalidValue  = "invalid_value"       // a value that does not fit its field
	RuleOutsideLimits = "outside_your_limits" // a value outside the mover's own limits
	RuleInvalidTerms  = "invalid_terms"       // terms that are no object of fields at all
)

// termsFaults is every fault of terms against the schema and the mover's
// own limits, in the order of the terms' fields, then the missing ones.
// ParseTerms and CheckOwn stop at the first (their message is the
// protocol's, held by the vectors); a refused move runs this once more to
// report the rest with it.
func (s *Schema) termsFaults(data []byte, l *Limits) []Fault {
	r := pooledReader()
	defer r.release()
	root, err := r.parse(data)
	if err != nil {
		e := termsErr("terms", "rule.json", "%s", err.Error())
		return []Fault{{Rule: RuleInvalidTerms, Message: e.Message, Words: e.Words}}
	}
	if root.kind != kindObject {
		e := termsErr("", "rule.terms_not_object", "terms must be an object of fields, not %s", root.kind.String())
		return []Fault{{Rule: RuleInvalidTerms, Message: e.Message, Words: e.Words}}
	}
	var out []Fault
	given := make([]bool, len(s.fields))
	for i := range root.members {
		m := &root.members[i]
		fi := s.index(m.key)
		if fi < 0 {
			e := termsErr("", "rule.unknown_field_of", "unknown field: %s (your subject_schema has %s)", Clip(m.key), strings.Join(s.names(), ", "))
			out = append(out, Fault{Field: Clip(m.key), Rule: RuleUnknownField, Message: e.Message, Words: e.Words})
			continue
		}
		given[fi] = true
		f := &s.fields[fi]
		vals, err := f.appendValues(nil, &m.val)
		if e, ok := err.(*Error); ok {
			out = append(out, Fault{Field: f.Name, Rule: RuleInvalidValue, Message: e.Message, Words: e.Words})
			continue
		}
		if lim, ok := l.Get(f.Name); ok {
			for j := range vals {
				if bs := lim.check(&vals[j]); len(bs) > 0 {
					e := lim.outside(bs[0])
					out = append(out, Fault{Field: f.Name, Rule: RuleOutsideLimits, Message: e.Message, Words: e.Words})
					break
				}
			}
		}
	}
	for i, f := range s.fields {
		if !f.Optional && !given[i] {
			e := termsErr("", "rule.missing_field", "missing required field: %s", f.Name)
			out = append(out, Fault{Field: f.Name, Rule: RuleMissingField, Message: e.Message, Words: e.Words})
		}
	}
	return out
}

// names is the schema's field names, in its order.
func (s *Schema) names() []string {
	out := make([]string, len(s.fields))
	for i := range s.fields {
		out[i] = s.fields[i].Name
	}
	return out
}

// withFaults is e with every fault of the terms attached (prefixed, for
// one of several options, with its place), e's message unchanged.
func withFaults(e *Error, s *Schema, l *Limits, data []byte, prefix string) *Error {
	if (e.Code != CodeInvalidTerms && e.Code != CodeOutsideOwnLimits) || len(data) > MaxTermsBytes {
		return e
	}
	faults := s.termsFaults(data, l)
	for i := range faults {
		if prefix != "" {
			faults[i].Field = strings.TrimSuffix(prefix+"."+faults[i].Field, ".")
			faults[i].Message = prefix + ": " + faults[i].Message
			faults[i].Words = faults[i].Words.within(prefix)
		}
	}
	e.Faults = append(e.Faults, faults...)
	return e
}
