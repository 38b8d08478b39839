package app

import (
	"strconv"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// AbuseConfig is what the service allows one agent or one room, against a
// counter-agent that floods: calls per agent key, rounds per room, and the
// time between one side's counters.
type AbuseConfig struct {
	// MCPRate is the sustained calls a second per agent key on /mcp
	// (MCP_RATE_LIMIT); 0: no limit. MCPBurst is how many may come at once
	// (MCP_RATE_BURST).
	MCPRate  float64
	MCPBurst int
	// Pace is the cap on rounds (ROOM_MAX_ROUNDS) and the cool-down between
	// one side's counters (COUNTER_COOLDOWN).
	Pace negotiation.Pace
}

// Defaults: far above what an agent that thinks between moves needs, far
// below what a loop can send.
const (
	defaultMCPRate         = 10
	defaultMCPBurst        = 40
	defaultMaxRounds       = 50
	defaultCounterCooldown = 2 * time.Second
)

// loadAbuse reads the abuse limits; bad reports a setting that breaks its rule.
func loadAbuse(env func(string) string, bad func(name, format string, args ...any)) AbuseConfig {
	a := AbuseConfig{MCPRate: defaultMCPRate, MCPBurst: defaultMCPBurst,
		Pace: negotiation.Pace{MaxRounds: defaultMaxRounds, Cooldown: defaultCounterCooldown}}
	if v := env("MCP_RATE_LIMIT"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1e6 {
			bad("MCP_RATE_LIMIT", "must be the calls a second allowed per agent key, e.g. 10 (0 turns the limit off)")
		}
		a.MCPRate = f
	}
	if v := env("MCP_RATE_BURST"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1e6 {
			bad("MCP_RATE_BURST", "must be a whole number of calls from 1, e.g. 40")
		}
		a.MCPBurst = n
	}
	if v := env("ROOM_MAX_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1e6 {
			bad("ROOM_MAX_ROUNDS", "must be a whole number of rounds, e.g. 50 (0: no cap)")
		}
		a.Pace.MaxRounds = n
	}
	if v := env("COUNTER_COOLDOWN"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > 24*time.Hour {
			bad("COUNTER_COOLDOWN", "must be a duration like 2s or 500ms, at most 24h (0 turns it off)")
		}
		a.Pace.Cooldown = d
	}
	return a
}
