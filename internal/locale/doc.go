// Package locale holds the words Taasky itself says to a person: what a
// room's state, a close reason, a limit's bound, a verdict or a
// confirmation's result is called, and the sentences that the doors
// (dashboard, notify, mcpserver's for_your_human) share. Each text has a
// key and an English message in one catalog (golang.org/x/text/message),
// with CLDR plural forms where a number is counted, so that a translation
// is a second catalog, not new code.
//
// A Printer writes the messages in one language; its typed accessors
// (State, ClosedReason, Bound, Verdict, Ask…) name each protocol value
// in words. What a party wrote (labels, titles, enum values) is never
// looked up here: it is shown as written. The operator's command line
// (`taasky serve`, `migrate`, `check`, `probe`…: help, errors, what a
// health check prints) speaks to whoever runs the service, not to a
// person using it, and keeps its English in cmd/taasky.
//
// It decides nothing and reads nothing: no I/O, no clock.
package locale
