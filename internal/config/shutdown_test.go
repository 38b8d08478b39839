package config

import (
	"strings"
	"testing"
	"time"
)

// TestLoadShutdown: SHUTDOWN_GRACE is optional (5 s), a duration from 0 to
// 5m; a bad one is one line naming the variable and the rule, and leaves
// the default.
func TestLoadShutdown(t *testing.T) {
	t.Parallel()
	grace := func(v string) func(string) string {
		return func(name string) string {
			if name == "SHUTDOWN_GRACE" {
				return v
			}
			return ""
		}
	}
	for v, want := range map[string]time.Duration{"": DefaultShutdownGrace, "0": 0, " 10s ": 10 * time.Second, "1500ms": 1500 * time.Millisecond, "5m": 5 * time.Minute} {
		var c Config
		if err := c.LoadShutdown(grace(v)); err != nil || c.ShutdownGrace != want {
			t.Errorf("SHUTDOWN_GRACE=%q: %s, %v; want %s", v, c.ShutdownGrace, err, want)
		}
	}
	for _, v := range []string{"5", "-1s", "5m1s", "soon", "1h"} {
		var c Config
		err := c.LoadShutdown(grace(v))
		if err == nil || !strings.HasPrefix(err.Error(), "SHUTDOWN_GRACE: must be a duration") || strings.Contains(err.Error(), "\n") {
			t.Errorf("SHUTDOWN_GRACE=%q: %v; want one line naming it and the rule", v, err)
		}
		if c.ShutdownGrace != DefaultShutdownGrace {
			t.Errorf("SHUTDOWN_GRACE=%q: left %s, want the default", v, c.ShutdownGrace)
		}
	}
}
