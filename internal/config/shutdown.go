package config

import (
	"errors"
	"strings"
	"time"
)

// DefaultShutdownGrace is how long, after SIGTERM, /readyz answers 503
// while the listener still accepts, when SHUTDOWN_GRACE is unset: a load
// balancer probing every second or two sees it fail a few times and stops
// sending before the listener closes.
const DefaultShutdownGrace = 5 * time.Second

// maxShutdownGrace keeps a typo (5m for 5s) from holding a rollout long;
// Kubernetes kills a pod 30 s after SIGTERM by default.
const maxShutdownGrace = 5 * time.Minute

// LoadShutdown reads SHUTDOWN_GRACE into c.ShutdownGrace (0 by default for
// `taasky dev`: no load balancer, and Ctrl-C should stop it at once). A
// bad value is one line, in the words of Load's, to be joined with its
// errors.
func (c *Config) LoadShutdown(getenv func(string) string) error {
	c.ShutdownGrace = DefaultShutdownGrace
	if c.Role&RoleDev != 0 {
		c.ShutdownGrace = 0
	}
	v := strings.TrimSpace(getenv("SHUTDOWN_GRACE"))
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > maxShutdownGrace {
		c.ShutdownGrace = DefaultShutdownGrace
		return errors.New("SHUTDOWN_GRACE: must be a duration like 5s or 500ms, at most 5m (0: close the listener at once)")
	}
	c.ShutdownGrace = d
	return nil
}
