package config

import (
	"strings"
	"testing"
)

// TestLoadRetention: the RETAIN_*_DAYS settings are optional (90, 30, 30
// and 7 days), whole numbers of days from 0 (kept for good) to 3650; a bad
// one is one line naming the variable and the rule, and leaves its default.
func TestLoadRetention(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(n string) string { return m[n] } }
	var c Config
	if err := c.LoadRetention(env(nil)); err != nil ||
		c.Retention != (Retention{DeliveryLog: 90 * Day, OneTap: 30 * Day, Webhooks: 30 * Day, OAuthClients: 7 * Day}) {
		t.Fatalf("defaults: %+v, %v", c.Retention, err)
	}
	if err := c.LoadRetention(env(map[string]string{"RETAIN_DELIVERY_LOG_DAYS": " 7 ", "RETAIN_ONETAP_DAYS": "0", "RETAIN_WEBHOOK_DAYS": "3650", "RETAIN_OAUTH_CLIENT_DAYS": "1"})); err != nil ||
		c.Retention != (Retention{DeliveryLog: 7 * Day, OneTap: 0, Webhooks: 3650 * Day, OAuthClients: 1 * Day}) {
		t.Fatalf("set: %+v, %v", c.Retention, err)
	}
	for _, name := range []string{"RETAIN_DELIVERY_LOG_DAYS", "RETAIN_ONETAP_DAYS", "RETAIN_WEBHOOK_DAYS", "RETAIN_OAUTH_CLIENT_DAYS"} {
		for _, v := range []string{"-1", "3651", "90d", "soon", "1.5"} {
			var c Config
			err := c.LoadRetention(env(map[string]string{name: v}))
			if err == nil || !strings.HasPrefix(err.Error(), name+": must be a whole number of days") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s=%q: %v; want one line naming it and the rule", name, v, err)
			}
			if c.Retention != (Retention{DeliveryLog: 90 * Day, OneTap: 30 * Day, Webhooks: 30 * Day, OAuthClients: 7 * Day}) {
				t.Errorf("%s=%q: left %+v, want the defaults", name, v, c.Retention)
			}
		}
	}
}
