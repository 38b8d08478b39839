package config

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// TestLoadAbuseRules: each bad abuse setting gives one line that names the
// variable and its rule.
func TestLoadAbuseRules(t *testing.T) {
	rateRule := "WEB_RATE_LIMIT: must be the requests a second allowed per client address, e.g. 2 (0 turns the limit off)"
	burstRule := "WEB_RATE_BURST: must be a whole number of requests from 1, e.g. 20"
	signupRule := "SIGNUP_DAILY_CAP: must be a whole number of accounts one person may create in 24 hours, e.g. 5 (0: no cap)"
	proxyRule := "TRUSTED_PROXIES: must be the addresses or CIDR ranges of your proxies, separated by commas, e.g. 10.0.0.0/8,192.0.2.7"
	tests := []struct {
		name string
		set  map[string]string
		want []string // the error's lines, whole
	}{
		{"rate not a number", map[string]string{"WEB_RATE_LIMIT": "fast"}, []string{rateRule}},
		{"rate negative", map[string]string{"WEB_RATE_LIMIT": "-1"}, []string{rateRule}},
		{"rate huge", map[string]string{"WEB_RATE_LIMIT": "1e9"}, []string{rateRule}},
		{"rate NaN", map[string]string{"WEB_RATE_LIMIT": "NaN"}, []string{rateRule}},
		{"mcp rate NaN", map[string]string{"MCP_RATE_LIMIT": "NaN"}, []string{
			"MCP_RATE_LIMIT: must be the calls a second allowed per agent, e.g. 10 (0 turns the limit off)"}},
		{"rate with a unit", map[string]string{"WEB_RATE_LIMIT": "2/s"}, []string{rateRule}},
		{"auth failures negative", map[string]string{"MCP_AUTH_FAILURE_LIMIT": "-1"}, []string{
			"MCP_AUTH_FAILURE_LIMIT: must be a whole number of failed authentications allowed per client address a minute, e.g. 20 (0 turns the limit off)"}},
		{"account concurrency negative", map[string]string{"MCP_ACCOUNT_CONCURRENCY": "-1"}, []string{
			"MCP_ACCOUNT_CONCURRENCY: must be a whole number of calls one account's agents may have in progress at once, e.g. 10 (0 turns the limit off)"}},
		{"account concurrency a word", map[string]string{"MCP_ACCOUNT_CONCURRENCY": "many"}, []string{
			"MCP_ACCOUNT_CONCURRENCY: must be a whole number of calls one account's agents may have in progress at once, e.g. 10 (0 turns the limit off)"}},
		{"burst zero", map[string]string{"WEB_RATE_BURST": "0"}, []string{burstRule}},
		{"burst fraction", map[string]string{"WEB_RATE_BURST": "2.5"}, []string{burstRule}},
		{"burst huge", map[string]string{"WEB_RATE_BURST": "10000000"}, []string{burstRule}},
		{"proxy a name", map[string]string{"TRUSTED_PROXIES": "proxy.internal"}, []string{proxyRule + ` ("proxy.internal" is neither)`}},
		{"proxy bad range", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/33"}, []string{proxyRule + ` ("10.0.0.0/33" is neither)`}},
		{"proxy empty entry", map[string]string{"TRUSTED_PROXIES": "10.0.0.1,,10.0.0.2"}, []string{proxyRule + ` ("" is neither)`}},
		{"proxy with a zone", map[string]string{"TRUSTED_PROXIES": "fe80::1%eth0"}, []string{proxyRule + ` ("fe80::1%eth0" is neither)`}},
		{"proxy with a port", map[string]string{"TRUSTED_PROXIES": "10.0.0.1:8080"}, []string{proxyRule + ` ("10.0.0.1:8080" is neither)`}},
		{"signup cap negative", map[string]string{"SIGNUP_DAILY_CAP": "-1"}, []string{signupRule}},
		{"signup cap a word", map[string]string{"SIGNUP_DAILY_CAP": "few"}, []string{signupRule}},
		{"agents cap negative", map[string]string{"AGENTS_PER_ACCOUNT_MAX": "-1"}, []string{
			"AGENTS_PER_ACCOUNT_MAX: must be a whole number of agents one account may have, e.g. 100 (0: no cap)"}},
		{"keys cap a word", map[string]string{"KEYS_PER_AGENT_MAX": "ten"}, []string{
			"KEYS_PER_AGENT_MAX: must be a whole number of unrevoked keys one agent may have, e.g. 10 (0: no cap)"}},
		{"open rooms cap a fraction", map[string]string{"OPEN_ROOMS_PER_ACCOUNT_MAX": "1.5"}, []string{
			"OPEN_ROOMS_PER_ACCOUNT_MAX: must be a whole number of open rooms one account may have, e.g. 10000 (0: no cap)"}},
		{"all at once", map[string]string{"WEB_RATE_LIMIT": "x", "WEB_RATE_BURST": "x", "MCP_RATE_LIMIT": "x"}, []string{
			"MCP_RATE_LIMIT: must be the calls a second allowed per agent, e.g. 10 (0 turns the limit off)", rateRule, burstRule}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := goodEnv()
			for k, v := range tt.set {
				env[k] = v
			}
			_, err := load(env, RoleWeb|RoleWorker)
			if err == nil {
				t.Fatalf("Load: no error, want %q", tt.want)
			}
			if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestLoadAbuseValues(t *testing.T) {
	c, err := load(goodEnv(), RoleWeb)
	if err != nil {
		t.Fatal(err)
	}
	if c.Abuse.WebRate != 2 || c.Abuse.WebBurst != 20 || c.Abuse.TrustedProxies != nil || c.Abuse.SignupDailyCap != 5 || c.Abuse.MCPAuthFailures != 20 || c.Abuse.MCPAccountConcurrency != 10 ||
		c.Abuse.AgentsPerAccountMax != 100 || c.Abuse.KeysPerAgentMax != 10 || c.Abuse.OpenRoomsPerAccountMax != 10000 {
		t.Errorf("defaults: %+v", c.Abuse)
	}
	env := goodEnv()
	env["WEB_RATE_LIMIT"] = "0"
	env["WEB_RATE_BURST"] = "5"
	env["SIGNUP_DAILY_CAP"] = "0"
	env["MCP_AUTH_FAILURE_LIMIT"] = "0"
	env["MCP_ACCOUNT_CONCURRENCY"] = "3"
	env["AGENTS_PER_ACCOUNT_MAX"] = "0"
	env["KEYS_PER_AGENT_MAX"] = "2"
	env["OPEN_ROOMS_PER_ACCOUNT_MAX"] = "0"
	env["TRUSTED_PROXIES"] = " 10.1.2.3/8, 192.0.2.7 ,2001:db8::/32,::ffff:172.16.0.0/108"
	if c, err = load(env, RoleWeb); err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"),
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("172.16.0.0/12")}
	if c.Abuse.WebRate != 0 || c.Abuse.WebBurst != 5 || !reflect.DeepEqual(c.Abuse.TrustedProxies, want) || c.Abuse.SignupDailyCap != 0 || c.Abuse.MCPAuthFailures != 0 || c.Abuse.MCPAccountConcurrency != 3 ||
		c.Abuse.AgentsPerAccountMax != 0 || c.Abuse.KeysPerAgentMax != 2 || c.Abuse.OpenRoomsPerAccountMax != 0 {
		t.Errorf("set: rate %v burst %d proxies %v", c.Abuse.WebRate, c.Abuse.WebBurst, c.Abuse.TrustedProxies)
	}
}
