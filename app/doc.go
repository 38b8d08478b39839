// Package app is the Taasky service: its use cases (accounts, agents and their
// keys, and the negotiation rooms) and the PostgreSQL store behind them. The
// process's configuration is read by internal/config, not here.
//
// It decides nothing about the protocol itself (package negotiation does) and
// knows nothing of HTTP, MCP or the command line: adapters call its use cases
// and translate its *Error codes for their users. Every query is scoped by the
// tenant (account) or the room, and the SQL of each table group lives in one
// store_*.go file.
package app
