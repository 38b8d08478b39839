package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention is how long personal data that has served its purpose is kept
// before the hourly purge (jobs.PurgeWorker) deletes it. A zero period
// keeps that data for good (nothing is deleted).
type Retention struct {
	// DeliveryLog: lines of the delivery logs (a user's, and a person's
	// per room), counted from the line's creation (RETAIN_DELIVERY_LOG_DAYS,
	// default 90 days); and the mail the dev outbox kept (no SMTP_URL),
	// from when it was kept.
	DeliveryLog time.Duration
	// OneTap: one-tap link tokens, and the address of the person who
	// answered in the browser (and the invitation's), counted from the end
	// of their room (RETAIN_ONETAP_DAYS, default 30 days): until then a
	// late tap still says what became of its confirmation; nothing is
	// mailed to the person about an ended room.
	OneTap time.Duration
	// Webhooks: webhook messages and their attempts, counted from their
	// last attempt once final (RETAIN_WEBHOOK_DAYS, default 30 days).
	Webhooks time.Duration
	// OAuthClients: an OAuth client registration (Dynamic Client
	// Registration, or a metadata document's copy) no person ever granted,
	// counted from its registration (RETAIN_OAUTH_CLIENT_DAYS, default 7
	// days); a client once granted is kept.
	OAuthClients time.Duration
}

// Day is the unit of the retention settings.
const Day = 24 * time.Hour

// The default periods (docs/operations.md, "Data kept").
const (
	DefaultDeliveryLogRetention = 90 * Day
	DefaultOneTapRetention      = 30 * Day
	DefaultWebhookRetention     = 30 * Day
	DefaultOAuthClientRetention = 7 * Day
)

// maxRetentionDays bounds a period (ten years): a typo should not be
// read as centuries.
const maxRetentionDays = 3650

// LoadRetention reads RETAIN_DELIVERY_LOG_DAYS, RETAIN_ONETAP_DAYS,
// RETAIN_WEBHOOK_DAYS and RETAIN_OAUTH_CLIENT_DAYS into c.Retention: whole numbers of days, 0 keeping
// that data for good. A bad value is one line, in the words of Load's.
func (c *Config) LoadRetention(getenv func(string) string) error {
	c.Retention = Retention{DeliveryLog: DefaultDeliveryLogRetention, OneTap: DefaultOneTapRetention, Webhooks: DefaultWebhookRetention,
		OAuthClients: DefaultOAuthClientRetention}
	var errs []error
	for _, s := range []struct {
		name, what string
		into       *time.Duration
	}{
		{"RETAIN_DELIVERY_LOG_DAYS", "a delivery log line is kept", &c.Retention.DeliveryLog},
		{"RETAIN_ONETAP_DAYS", "a one-tap link and a person's address are kept after their room ended", &c.Retention.OneTap},
		{"RETAIN_WEBHOOK_DAYS", "a webhook message is kept after its last attempt", &c.Retention.Webhooks},
		{"RETAIN_OAUTH_CLIENT_DAYS", "an OAuth client registration no one granted is kept", &c.Retention.OAuthClients},
	} {
		v := strings.TrimSpace(getenv(s.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxRetentionDays {
			errs = append(errs, fmt.Errorf("%s: must be a whole number of days %s, from 0 to %d, e.g. %d (0: kept for good)",
				s.name, s.what, maxRetentionDays, int(*s.into/Day)))
			continue
		}
		*s.into = time.Duration(n) * Day
	}
	return errors.Join(errs...)
}
