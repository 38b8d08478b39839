package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// Abuse is what the service allows one agent, one room or one
// client address, against a counter-agent or a stranger that floods: calls
// per agent, rounds per room, the time between one side's counters,
// and requests per client address to the pages that take a secret or start
// a login.
type Abuse struct {
	// MCPRate is the sustained calls a second per agent on /mcp, all its
	// keys and access tokens together (MCP_RATE_LIMIT); 0: no limit.
	// MCPBurst is how many may come at once (MCP_RATE_BURST).
	MCPRate  float64
	MCPBurst int
	// MCPAuthFailures is how many failed authentications on /mcp (an
	// unknown, revoked or malformed bearer) one client address may make a
	// minute before its bearers are refused unlooked-up
	// (MCP_AUTH_FAILURE_LIMIT); 0: no limit.
	MCPAuthFailures int
	// MCPAccountConcurrency is how many requests of one account's agents
	// a process serves on /mcp at once (MCP_ACCOUNT_CONCURRENCY); past it
	// 429. A read waiting for its room (wait_seconds) stops counting while
	// it waits. 0: no limit.
	MCPAccountConcurrency int
	// WebRate is the sustained requests a second per client address to
	// the login, invitation, personal, one-tap and unsubscribe pages
	// (WEB_RATE_LIMIT); 0: no limit. WebBurst is how many may come at once
	// (WEB_RATE_BURST).
	WebRate  float64
	WebBurst int
	// TrustedProxies are the proxies whose X-Forwarded-For names the client
	// (TRUSTED_PROXIES); none: the client is the connection's address.
	TrustedProxies []netip.Prefix
	// Pace is the cap on rounds (ROOM_MAX_ROUNDS) and the cool-down between
	// one side's counters (COUNTER_COOLDOWN).
	Pace negotiation.Pace
	// SignupDailyCap is how many accounts one person may create from the
	// dashboard in any 24 hours (SIGNUP_DAILY_CAP); 0: no cap.
	SignupDailyCap int
	// AgentsPerAccountMax, KeysPerAgentMax and OpenRoomsPerAccountMax cap
	// what one account may hold: agents that can act
	// (AGENTS_PER_ACCOUNT_MAX), unrevoked keys per agent
	// (KEYS_PER_AGENT_MAX), rooms not ended (OPEN_ROOMS_PER_ACCOUNT_MAX);
	// 0: no cap.
	AgentsPerAccountMax    int
	KeysPerAgentMax        int
	OpenRoomsPerAccountMax int
}

// Defaults: far above what an agent that thinks between moves, or a person
// who reads a page before the next, needs; far below what a loop can send.
const (
	defaultMCPRate         = 10
	defaultMCPBurst        = 40
	defaultMCPAuthFailures = 20
	// defaultMCPAccountConcurrency: a fifth of a process's 50 pool
	// connections, so that the busiest accounts leave the others some; an
	// account's calls take milliseconds, so 10 at once answer thousands a
	// second, more than its 100 agents' rate limits allow.
	defaultMCPAccountConcurrency = 10
	defaultWebRate               = 2
	defaultWebBurst              = 20
	defaultMaxRounds             = 50
	defaultCounterCooldown       = 2 * time.Second
	defaultSignupDailyCap        = 5
)

// Caps' defaults: far above a team's agents (one per member and tool), a
// rotation's keys (two at once) and the rooms a busy account keeps open (a
// draft's invitation expires; a room with a deadline lapses), far below
// what a loop creates in a day.
const (
	defaultAgentsPerAccountMax    = 100
	defaultKeysPerAgentMax        = 10
	defaultOpenRoomsPerAccountMax = 10000
)

// loadAbuse reads the abuse limits; bad reports a setting that breaks its rule.
func loadAbuse(env func(string) string, bad func(name, format string, args ...any)) Abuse {
	a := Abuse{MCPRate: defaultMCPRate, MCPBurst: defaultMCPBurst, MCPAuthFailures: defaultMCPAuthFailures, MCPAccountConcurrency: defaultMCPAccountConcurrency,
		WebRate: defaultWebRate, WebBurst: defaultWebBurst,
		Pace: negotiation.Pace{MaxRounds: defaultMaxRounds, Cooldown: defaultCounterCooldown}, SignupDailyCap: defaultSignupDailyCap,
		AgentsPerAccountMax: defaultAgentsPerAccountMax, KeysPerAgentMax: defaultKeysPerAgentMax, OpenRoomsPerAccountMax: defaultOpenRoomsPerAccountMax}
	if v := env("MCP_RATE_LIMIT"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1e6) { // NaN too
			bad("MCP_RATE_LIMIT", "must be the calls a second allowed per agent, e.g. 10 (0 turns the limit off)")
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
	if v := env("MCP_AUTH_FAILURE_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1e6 {
			bad("MCP_AUTH_FAILURE_LIMIT", "must be a whole number of failed authentications allowed per client address a minute, e.g. 20 (0 turns the limit off)")
		}
		a.MCPAuthFailures = n
	}
	if v := env("MCP_ACCOUNT_CONCURRENCY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1e6 {
			bad("MCP_ACCOUNT_CONCURRENCY", "must be a whole number of calls one account's agents may have in progress at once, e.g. 10 (0 turns the limit off)")
		}
		a.MCPAccountConcurrency = n
	}
	if v := env("WEB_RATE_LIMIT"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1e6) { // NaN too
			bad("WEB_RATE_LIMIT", "must be the requests a second allowed per client address, e.g. 2 (0 turns the limit off)")
		}
		a.WebRate = f
	}
	if v := env("WEB_RATE_BURST"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1e6 {
			bad("WEB_RATE_BURST", "must be a whole number of requests from 1, e.g. 20")
		}
		a.WebBurst = n
	}
	if v := env("TRUSTED_PROXIES"); v != "" {
		var msg string
		a.TrustedProxies, msg = parseTrustedProxies(v)
		if msg != "" {
			bad("TRUSTED_PROXIES", "%s", msg)
		}
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
	if v := env("SIGNUP_DAILY_CAP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1e6 {
			bad("SIGNUP_DAILY_CAP", "must be a whole number of accounts one person may create in 24 hours, e.g. 5 (0: no cap)")
		}
		a.SignupDailyCap = n
	}
	capOf := func(name, what string, def int, into *int) {
		if v := env(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 1e9 {
				bad(name, "must be a whole number of %s, e.g. %d (0: no cap)", what, def)
			}
			*into = n
		}
	}
	capOf("AGENTS_PER_ACCOUNT_MAX", "agents one account may have", defaultAgentsPerAccountMax, &a.AgentsPerAccountMax)
	capOf("KEYS_PER_AGENT_MAX", "unrevoked keys one agent may have", defaultKeysPerAgentMax, &a.KeysPerAgentMax)
	capOf("OPEN_ROOMS_PER_ACCOUNT_MAX", "open rooms one account may have", defaultOpenRoomsPerAccountMax, &a.OpenRoomsPerAccountMax)
	return a
}

// parseTrustedProxies reads a comma-separated list of addresses and CIDR
// ranges; msg says what is wrong with it.
func parseTrustedProxies(v string) (ps []netip.Prefix, msg string) {
	const rule = "must be the addresses or CIDR ranges of your proxies, separated by commas, e.g. 10.0.0.0/8,192.0.2.7"
	for s := range strings.SplitSeq(v, ",") {
		s = strings.TrimSpace(s)
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Sprintf("%s (%q is neither)", rule, s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), max(0, p.Bits()-96))
		}
		ps = append(ps, p.Masked())
	}
	return ps, ""
}
