package negotiation

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
}

func (e *Error) Error() string { return e.Message }

func errf(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

func refused(msg string) *Error { return errf(CodeRefused, msg) }
