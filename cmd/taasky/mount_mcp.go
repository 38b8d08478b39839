package main

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/refusals"
	"github.com/taasky/taasky/mcpserver"
)

// mountMCP serves the agents' tools at POST /mcp/{account_slug} (and /mcp),
// to agent keys and OAuth access tokens, with the agents' rate limit and
// the limit on failed authentications per client address (behind
// TRUSTED_PROXIES, the client's, as the dashboard counts it) and the
// limit on one account's calls in progress at once. The MCP
// server and its tools are built once, here, not per request.
func mountMCP(a *fiber.App, d deps, door *oauthDoor) {
	rl := mcpserver.RateLimit{Rate: d.cfg.Abuse.MCPRate, Burst: d.cfg.Abuse.MCPBurst}
	var m *mcpserver.Metrics
	if d.metrics != nil {
		m = d.metrics.mcp
	}
	mcpserver.New(d.rooms, version).WithRateLimit(rl).WithAccountConcurrency(d.cfg.Abuse.MCPAccountConcurrency).WithAuthFailureLimit(d.cfg.Abuse.MCPAuthFailures, d.cfg.Abuse.TrustedProxies).WithLogger(d.log.With("component", "mcp")).WithMetrics(m).WithRefusals(d.refusals()).Mount(a, door.mcpAuth(d.accounts))
}

// refusals is where the process counts the requests refused at its doors
// (nil without metrics: none counted or logged).
func (d deps) refusals() *refusals.Refusals {
	if d.metrics == nil {
		return nil
	}
	return d.metrics.refusals
}

// version is the build's version, set with -ldflags "-X main.version=…".
var version = "dev"
