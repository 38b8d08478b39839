// Package app is the Taasky service: its use cases (accounts, agents and their
// keys, and the negotiation rooms) and the PostgreSQL store behind them. The
// process's configuration is read by internal/config, not here.
//
// It decides nothing about the protocol itself (package negotiation does) and
// knows nothing of HTTP, MCP or the command line: adapters call its use cases
// and translate its *Error codes for their users. Every query is scoped by the
// tenant (account) or the room. All the SQL lives in the store files, one
// group of tables each (store_rooms*.go, store_confirmations.go,
// store_accounts.go, store_agents.go, store_notifications*.go,
// store_listen.go): use cases call named store functions, which wrap their
// errors with their name (errors.Is still finds pgx.ErrNoRows); a test
// fails on SQL anywhere else.
package app
