package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DefaultOAuthGrantMax is OAUTH_GRANT_MAX_DAYS's default.
const DefaultOAuthGrantMax = 90 * Day

// maxOAuthGrantDays bounds OAUTH_GRANT_MAX_DAYS (ten years, as the
// retention periods): there is no "for good", which is what it closes.
const maxOAuthGrantDays = 3650

// LoadOAuth reads OAUTH_GRANT_MAX_DAYS into c.OAuthGrantMax: how long an
// MCP client's grant lasts from the person's consent, however often its
// refresh token rotates; then the person must connect the client again.
// A bad value is one line, in the words of Load's.
func (c *Config) LoadOAuth(getenv func(string) string) error {
	c.OAuthGrantMax = DefaultOAuthGrantMax
	v := strings.TrimSpace(getenv("OAUTH_GRANT_MAX_DAYS"))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxOAuthGrantDays {
		return fmt.Errorf("OAUTH_GRANT_MAX_DAYS: must be a whole number of days an MCP client's grant lasts from the person's consent, from 1 to %d, e.g. 90", maxOAuthGrantDays)
	}
	c.OAuthGrantMax = time.Duration(n) * Day
	return nil
}
