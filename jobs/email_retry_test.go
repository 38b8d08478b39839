package jobs

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestEmailRetriedWithinMinutes: an email whose mail server is away is
// tried again at most 5 minutes after a failed attempt during its first 6
// hours, and at most an hour after one later, for about three days, by a
// real River client with the service's RetryPolicy. Before, River's attempt⁴ seconds left 21.6 minutes
// after the 6th attempt (so a mail due in an hour's outage went up to 40
// minutes after the server was back) and 2.8 hours after the 10th.
func TestEmailRetriedWithinMinutes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	note := &Notification{To: "bob@example.test", Now: time.Now(), RoomURL: "http://x/rooms/1", OneTapURL: "http://x/c/ot_1"}
	workers := river.NewWorkers()
	river.AddWorker(workers, &EmailWorker{Deliveries: &fakeDeliveries{n: note}, Mailer: &fakeMailer{err: errors.New("dial tcp: connection refused")},
		From: "taasky@example.test", Log: slog.New(slog.DiscardHandler)})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Workers: workers, Logger: slog.New(slog.DiscardHandler),
		Queues: Queues(5, 5), FetchCooldown: FetchCooldown, RetryPolicy: &RetryPolicy{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Stop(ctx) }()

	for _, c := range []struct {
		name     string
		age      time.Duration // of the job when its attempt fails
		attempt  int           // the attempt that fails
		atMost   time.Duration // until the next
		riverMin time.Duration // River's own, for the record
	}{
		{"first hours", time.Minute, 6, emailQuickStep, 21 * time.Minute},
		{"later", 7 * time.Hour, 10, emailSlowStep, 2 * time.Hour},
	} {
		res, err := client.Insert(ctx, EmailArgs{Notice: Notice{Topic: TopicRequest, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: c.name}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := res.Job.ID
		if res.Job.MaxAttempts != EmailMaxAttempts {
			t.Fatalf("%s: %d attempts, want %d", c.name, res.Job.MaxAttempts, EmailMaxAttempts)
		}
		// Its first attempt fails (River tries again a second later), then
		// the job is made as it is before the case's attempt: failed
		// attempt-1 times (River counts the errors), as old as the case says.
		retryable := func(attempt int) (wait time.Duration) {
			t.Helper()
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				var state string
				var n int
				var scheduled, attempted time.Time
				if err := pool.QueryRow(ctx, `SELECT state, coalesce(cardinality(errors), 0), scheduled_at, coalesce(attempted_at, now()) FROM river_job WHERE id = $1`, id).
					Scan(&state, &n, &scheduled, &attempted); err != nil {
					t.Fatal(err)
				}
				// Failed attempt times and waiting: "available" when the
				// next attempt is near, "retryable" when further.
				if (state == "retryable" || state == "available") && n == attempt {
					return scheduled.Sub(attempted)
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: job %d still %s after %d failed attempts, want %d", c.name, id, state, n, attempt)
				}
			}
		}
		retryable(1)
		if _, err := pool.Exec(ctx, `UPDATE river_job SET attempt = $2::int, errors = array_fill('{"error": "away"}'::jsonb, ARRAY[$2::int]),
				created_at = now() - $3::interval, scheduled_at = now(), state = 'available'
			WHERE id = $1 AND state IN ('available', 'retryable')`, id, c.attempt-1, c.age.String()); err != nil {
			t.Fatal(err)
		}
		wait := retryable(c.attempt)
		if wait > c.atMost+time.Second || wait <= 0 {
			t.Errorf("%s: after attempt %d the next is %v later, want at most %v (River's own: over %v)", c.name, c.attempt, wait, c.atMost, c.riverMin)
		}
	}
}

// TestEmailAttemptsLastAboutThreeDays: the schedule's attempts, failed one
// after the other, span about three days.
func TestEmailAttemptsLastAboutThreeDays(t *testing.T) {
	created := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	now := created
	for a := 1; a < EmailMaxAttempts; a++ {
		now = emailNextRetry(a, created, now)
	}
	if span := now.Sub(created); span < 70*time.Hour || span > 74*time.Hour {
		t.Errorf("%d attempts span %v, want about 72 h", EmailMaxAttempts, span)
	}
}

// TestEveryEmailKindOnTheEmailSchedule: each kind of job that sends an
// email (a notice, a person's reminder, a room's and an account's
// invitation) is retried on the email schedule, counted from River's
// errors so far plus the attempt that just failed: after the 4th failed
// attempt, 4⁴ seconds; after the 6th, at most emailQuickStep (River's own
// would wait 21 minutes).
func TestEveryEmailKindOnTheEmailSchedule(t *testing.T) {
	t.Parallel()
	p := &RetryPolicy{}
	for _, kind := range []string{EmailArgs{}.Kind(), PersonReminderArgs{}.Kind(), InviteArgs{}.Kind(), MemberInviteArgs{}.Kind()} {
		for _, c := range []struct {
			failed   int // attempts failed before the one that just did
			min, max time.Duration
		}{
			{3, 256 * time.Second, 256 * time.Second},
			{5, emailQuickStep, emailQuickStep},
		} {
			job := &rivertype.JobRow{Kind: kind, CreatedAt: time.Now().Add(-time.Minute), Errors: make([]rivertype.AttemptError, c.failed)}
			before := time.Now()
			next := p.NextRetry(job)
			after := time.Now()
			if next.Before(before.Add(c.min)) || next.After(after.Add(c.max)) {
				t.Errorf("%s after %d failed attempts: next in %v, want %v", kind, c.failed+1, next.Sub(before), c.max)
			}
		}
	}
}
