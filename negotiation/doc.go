// Package negotiation is Taasky's protocol, pure: subject schemas, terms and
// their subject_hash, money, private limits, the room state machine with its
// human confirmations, and the confirmation card.
//
// Everything that decides lives here: is this schema, these terms or these
// limits valid; is this move allowed and what is the room after it; which of
// the other side's terms fall outside my limits; can any deal exist at all.
// Adapters (MCP, web, jobs, store) translate and persist; they never decide.
//
// The package does no I/O and reads no clock: time is passed in. It imports
// only the standard library and shopspring/decimal (a test holds it to that).
package negotiation
