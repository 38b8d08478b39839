package negotiation

import "fmt"

// Code classifies an Error. Every code is safe to show to the caller: the
// message names the field and the rule, never anything the caller may not see.
type Code string

const (
	CodeInvalidSchema    Code = "invalid_schema"     // a subject_schema breaks a rule
	CodeInvalidTerms     Code = "invalid_terms"      // terms do not fit the schema
	CodeInvalidLimits    Code = "invalid_limits"     // limits do not fit the schema
	CodeOutsideOwnLimits Code = "outside_own_limits" // own terms break own limits
	CodeInvalidInput     Code = "invalid_input"      // any other bad input (verdict, deadline, fields…)
	CodeRefused          Code = "refused"            // the move is not allowed in this room now
)

// Error is a decision of the protocol that refuses something. Its message is
// one line naming the field and the rule (the vectors hold the exact texts).
type Error struct {
	Code    Code
	Message string
	// Faults, when the input broke more than one rule (terms), is every
	// fault found, the first of them the one Message says.
	Faults []Fault
	// Words is Message for a catalog, so that a door can say it in its
	// reader's language (the protocol itself speaks English only).
	Words
}

// Words is a refusal as a message catalog has it: Key names the rule's
// text (internal/locale holds one per language, English word for word the
// rule in Message), Args fill it in order, and At, when set, is the place
// Message begins with, as the caller wrote it ("fee.amount", "slots[1]",
// "options[1]: place"): Message is At + ": " + the rule. Key is "" for the
// refusals only an agent meets (a schema's or limits' rules), which are
// shown as Message. Args are plain values: strings, ints, bools.
type Words struct {
	At   string `json:"-"`
	Key  string `json:"-"`
	Args []any  `json:"-"`
}

// within is the words placed inside place ("options[1]", "slots").
func (w Words) within(place string) Words {
	if w.At != "" {
		place += ": " + w.At
	}
	return Words{At: place, Key: w.Key, Args: w.Args}
}

func (e *Error) Error() string { return e.Message }

func errf(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// ruleErr is an Error whose words are key with args, about the value at
// at ("" when the rule names no value); format is the rule in English,
// the catalog's text for key.
func ruleErr(code Code, at, key, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if at != "" {
		msg = at + ": " + msg
	}
	return &Error{Code: code, Message: msg, Words: Words{At: at, Key: key, Args: args}}
}

// plural is the English format for a count of n: one for 1, else many.
// (The catalogs carry each language's plural rules for the same words.)
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// refused is a move not allowed in the room now, in a sentence of its own.
func refused(key, format string, args ...any) *Error {
	return ruleErr(CodeRefused, "", key, format, args...)
}

// within is e placed inside place, its Faults left behind (as "slots: …").
func (e *Error) within(place string) *Error {
	return &Error{Code: e.Code, Message: place + ": " + e.Message, Words: e.Words.within(place)}
}
