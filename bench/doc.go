// Package bench is `taasky bench`: a load generator of real MCP agents
// (go-sdk clients over HTTP) doing whole negotiations, each human
// confirming through the one-tap link of the email they receive, measured
// against the machine's own limits in the same run: the MCP transport's
// floor (an echo tool through the same Fiber + go-sdk stack) and
// PostgreSQL's durable-commit rate (pgbench -N).
//
// It only measures; no figure here is a pass/fail threshold.
package bench
