package config

import (
	"strings"
	"testing"
)

// TestLoadOAuth: OAUTH_GRANT_MAX_DAYS is optional (90 days), a whole
// number of days from 1 to 3650 (no "for good": that is what it bounds); a
// bad one is one line naming the variable and the rule.
func TestLoadOAuth(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(n string) string { return m[n] } }
	var c Config
	if err := c.LoadOAuth(env(nil)); err != nil || c.OAuthGrantMax != 90*Day {
		t.Errorf("unset: %v %v, want 90 days", c.OAuthGrantMax, err)
	}
	if err := c.LoadOAuth(env(map[string]string{"OAUTH_GRANT_MAX_DAYS": " 30 "})); err != nil || c.OAuthGrantMax != 30*Day {
		t.Errorf("30: %v %v", c.OAuthGrantMax, err)
	}
	for _, v := range []string{"0", "-1", "3651", "90d", "1.5"} {
		err := c.LoadOAuth(env(map[string]string{"OAUTH_GRANT_MAX_DAYS": v}))
		if err == nil || !strings.HasPrefix(err.Error(), "OAUTH_GRANT_MAX_DAYS: must be a whole number of days") || !strings.Contains(err.Error(), "1 to 3650") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v", v, err)
		}
	}
}
