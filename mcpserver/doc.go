// Package mcpserver is the agents' door: Taasky's seven negotiation tools
// over MCP (modelcontextprotocol/go-sdk, Streamable HTTP, stateless, JSON
// responses), served per account at POST /mcp/{account_slug} behind an
// agent-key check.
//
// It translates and nothing more: arguments are read strictly (every
// unknown argument, wrong type and missing one, all in one tool error), the
// service decides, and results are structured content plus the same JSON as
// text. Tool schemas and descriptions are the public contract; they are
// snapshotted in testdata/tools.golden.json. An error that is not the
// caller's is answered "internal error" and logged (WithLogger); every call
// is counted by tool and outcome (WithMetrics).
//
// Arguments are read from the raw JSON of the call, not through go-sdk's
// typed tools: those decode arguments into a map, which forgets the order a
// schema's fields were declared in (the order the humans' cards show) and
// keeps only the last of two duplicate keys.
package mcpserver
