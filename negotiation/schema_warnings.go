package negotiation

import (
	"fmt"
	"strings"
)

// manyFields is where a schema starts to be more than two people will read.
const manyFields = 12

// schemaWarnings reads a valid schema against seed 000's "Keep it small":
// every field is something both humans read and both sides can disagree on.
func schemaWarnings(s *Schema) []string {
	var out []string
	hasTimerange := false
	for _, f := range s.fields {
		hasTimerange = hasTimerange || f.Type == TypeTimerange
	}
	for _, f := range s.fields {
		words := f.Name + " " + strings.ToLower(f.Label)
		switch {
		case hasTimerange && f.Type == TypeInt && containsAny(words, "duration", "minutes", "length", "hours", "dauer"):
			out = append(out, fmt.Sprintf("%s: a timerange already says how long; a separate duration can contradict it", f.Name))
		case f.Type == TypeString && containsAny(f.Name, "time", "date", "day", "when", "slot"):
			out = append(out, fmt.Sprintf("%s: a moment or a day written as text cannot be checked; use a timerange or a date", f.Name))
		case f.Type == TypeString && containsAny(f.Name, "price", "fee", "amount", "cost", "budget"):
			out = append(out, fmt.Sprintf("%s: an amount written as text cannot be checked; use money", f.Name))
		case (f.Type == TypeDate || f.Type == TypeString) && (strings.HasSuffix(f.Name, "_start") || strings.HasSuffix(f.Name, "_end") || f.Name == "start" || f.Name == "end"):
			out = append(out, fmt.Sprintf("%s: a start and an end are one timerange, not two fields", f.Name))
		}
		if strings.Contains(f.Label, "_") && f.Label == f.Name {
			out = append(out, fmt.Sprintf("%s: the label is the field's name; write it for a person", f.Name))
		}
	}
	if len(s.fields) > manyFields {
		out = append(out, fmt.Sprintf("%d fields: add a field only if the two sides might actually differ on it", len(s.fields)))
	}
	return out
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
