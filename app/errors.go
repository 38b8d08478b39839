package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// ErrorCode says what kind of failure an *Error is, so that each adapter can
// map it once to its own answer (an HTTP status, an MCP tool error, an exit
// code). The mappings live in the adapters, not here.
type ErrorCode string

const (
	// ErrInvalid: the caller's input breaks a rule; the message names the field
	// and the rule and is safe to show.
	ErrInvalid ErrorCode = "invalid"
	// ErrNotFound: the thing asked for does not exist (in the caller's tenant).
	ErrNotFound ErrorCode = "not_found"
	// ErrConflict: the input is valid but clashes with what exists (a taken slug).
	ErrConflict ErrorCode = "conflict"
	// ErrUnauthorized: the caller could not be identified (unknown or revoked key)
	// or may not do this.
	ErrUnauthorized ErrorCode = "unauthorized"
	// ErrInternal: anything else. Its details are logged, never shown.
	ErrInternal ErrorCode = "internal"
)

// Error is a failure whose Message is safe to show to the user who caused it.
// Errors that are not an *Error are internal: log them and show "internal error".
type Error struct {
	Code    ErrorCode
	Message string
	// Faults is every broken rule of the input, when there are several
	// (negotiation.Error's); Message is the first.
	Faults []negotiation.Fault
	// Words is Message as the catalog has it (internal/locale: a key and
	// its arguments), for a door that speaks its reader's language; its
	// Key is "" for the errors only an agent or the operator meets, which
	// are shown as Message.
	negotiation.Words
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Moment is a time in a refusal's words: its English message says it in
// UTC (RFC 3339), a door that knows its reader says it in their zone and
// language (the dashboard).
type Moment time.Time

func (m Moment) String() string { return time.Time(m).UTC().Format(time.RFC3339) }

// Refuse is refuse for the other packages of the doors (oauthserver):
// an *Error whose words are in the catalog under key.
func Refuse(code ErrorCode, key, format string, args ...any) *Error {
	return refuse(code, key, format, args...)
}

// refuse returns an *Error whose message is also in the catalog: key
// names its text there (internal/locale), format is that text in English,
// args fill both.
func refuse(code ErrorCode, key, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Words: negotiation.Words{Key: key, Args: args}}
}

// plural is the English format for a count of n: one for 1, else many.
// (The catalogs carry each language's plural rules for the same words.)
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ErrorCodeOf returns the code of the first *Error in err's chain,
// "" for a nil err and ErrInternal for any other error.
func ErrorCodeOf(err error) ErrorCode {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ErrInternal
}

// ErrorMessageOf returns the message to show a user for err: the message of
// its *Error, or "internal error" when err is not one.
func ErrorMessageOf(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Message
	}
	return "internal error"
}
