package app

import (
	"fmt"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestRetentionPurgesTheDevOutbox: the mail a dev, or a serve without
// SMTP_URL, kept instead of sending (dev_outbox: the one-tap links it
// carries in plain text) is deleted by the purge once older than the
// delivery log's period, over several statements, and the mail inside it
// is kept; a period of 0 keeps it all.
func TestRetentionPurgesTheDevOutbox(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := t.Context()
	now := time.Now()
	old := 2*purgeOutboxPerStatement + 50 // more than two statements take
	for i := range old {
		if err := insertOutbox(ctx, pool, "pat@example.test", fmt.Sprintf("old %d", i),
			[]byte("https://taasky.example/t/ot_secret"), now.Add(-91*day)); err != nil {
			t.Fatal(err)
		}
	}
	// One written a little out of order (an older mail with a higher id),
	// as two deliveries at once may; then the mail within the period.
	for _, m := range []struct {
		subject string
		age     time.Duration
	}{{"new 89 days", 89 * day}, {"old after new", 92 * day}, {"new today", time.Hour}} {
		if err := insertOutbox(ctx, pool, "pat@example.test", m.subject, []byte("x"), now.Add(-m.age)); err != nil {
			t.Fatal(err)
		}
	}
	kept := func() []string {
		t.Helper()
		ms, err := selectOutbox(ctx, pool, 500)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, m := range ms {
			s = append(s, m.Subject)
		}
		return s
	}

	// A period of 0 keeps the mail for good.
	if out, err := NewRetention(pool, RetentionPeriods{}).PurgeOld(ctx, now, time.Now().Add(time.Minute)); err != nil || out["dev_outbox"] != 0 {
		t.Fatalf("with no periods the purge deleted %v (%v), want nothing", out, err)
	}
	if n := len(kept()); n != old+3 {
		t.Fatalf("with no periods %d messages left, want %d", n, old+3)
	}

	out, err := NewRetention(pool, testPeriods).PurgeOld(ctx, now, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if out["dev_outbox"] != old+1 {
		t.Errorf("the purge deleted %d outbox messages, want the %d older than 90 days", out["dev_outbox"], old+1)
	}
	if got := kept(); fmt.Sprint(got) != "[new today new 89 days]" {
		t.Errorf("%d outbox messages left (%q…), want the two of the last 90 days", len(got), got[:min(len(got), 4)])
	}
}
