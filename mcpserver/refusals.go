package mcpserver

import (
	"log/slog"
	"strconv"

	"github.com/taasky/taasky/internal/refusals"
)

// Why the agents' door refused a request before any tool ran: the reason
// label of taasky_requests_refused_total{route="mcp"}.
const (
	reasonNoBearer     = "no_bearer"     // no Authorization bearer
	reasonBadBearer    = "bad_bearer"    // an unknown, revoked or malformed key or token
	reasonAuthFailures = "auth_failures" // its address is past the failed authentications' limit
	reasonRateLimit    = "rate_limit"    // its agent is past its rate limit
	reasonAtOnce       = "at_once"       // its account's calls at once are taken
	reasonKeyUnchecked = "key_unchecked" // the database did not answer the key's check
	reasonWrongAccount = "wrong_account" // the key is another account's
	reasonBadRequest   = "bad_request"   // a body or header go-sdk would refuse in words of its own
)

// refusalRoute is the route label of the door's refusals.
const refusalRoute = "mcp"

// WithRefusals counts the requests refused before a tool ran in r, and
// logs them there sparingly (nil: neither), and returns s.
func (s *Server) WithRefusals(r *refusals.Refusals) *Server {
	r.Known(refusalRoute, reasonNoBearer, reasonBadBearer, reasonAuthFailures, reasonRateLimit, reasonAtOnce,
		reasonKeyUnchecked, reasonWrongAccount, reasonBadRequest)
	s.refusals = r
	return s
}

// refusedBearer counts a request turned away for its credentials. Anyone
// can send them: one line per refusals.Every at most, with the count, and
// nothing of what was sent.
func (s *Server) refusedBearer(reason string) {
	s.refusals.Refused(refusalRoute, reason, "", slog.LevelInfo,
		"MCP requests refused before their agent was known (no bearer, a bad one, or an address past its failed authentications)", "component", "mcp")
}

// refusedAgent counts a request of a known agent turned away by a limit,
// and names the agent (and its account, when known) to the operator: the
// tenant whose agent floods. One line per agent (calls at once: per
// account) per refusals.Every at most.
func (s *Server) refusedAgent(reason string, agentID int64, account string) {
	attrs := []any{"component", "mcp", "agent_id", agentID}
	if account != "" {
		attrs = append(attrs, "account", account)
	}
	msg, who := "an agent's MCP calls are refused: it is past its rate limit (MCP_RATE_LIMIT, MCP_RATE_BURST)", strconv.FormatInt(agentID, 10)
	if reason == reasonAtOnce {
		msg, who = "an account's MCP calls are refused: its calls at once are all taken (MCP_ACCOUNT_CONCURRENCY)", account
	}
	s.refusals.Refused(refusalRoute, reason, who, slog.LevelWarn, msg, attrs...)
}

// refusedQuietly counts a refusal that needs no line of its own: the
// caller's mistake told to it, or the database's failure, logged where it
// is seen.
func (s *Server) refusedQuietly(reason string) {
	s.refusals.Count(refusalRoute, reason)
}
