package jobs

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify"
)

// TestWebhookAttemptsFollowTheSchedule: a webhook whose endpoint never
// answers is tried the first time and then after each wait of the Standard
// Webhooks schedule in turn (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h),
// about 27 hours in all, and no more.
func TestWebhookAttemptsFollowTheSchedule(t *testing.T) {
	t.Parallel()
	w := &WebhookWorker{}
	attempts := WebhookArgs{}.InsertOpts().MaxAttempts
	var span time.Duration
	for a := 1; a < attempts; a++ {
		before := time.Now()
		next := w.NextRetry(&river.Job[WebhookArgs]{JobRow: &rivertype.JobRow{Attempt: a, MaxAttempts: attempts}})
		wait := next.Sub(before)
		if want := WebhookBackoff[a-1]; wait < want || wait > want+time.Second {
			t.Errorf("after attempt %d: the next in %v, want %v", a, wait, want)
		}
		span += WebhookBackoff[a-1]
	}
	if want := 27*time.Hour + 35*time.Minute + 5*time.Second; span != want || attempts != 8 {
		t.Errorf("%d attempts over %v, want 8 over %v", attempts, span, want)
	}
}

// fakeWebhooks answers the webhook worker with one message to url and
// keeps its log; sentBy is what WebhookSentBy says.
type fakeWebhooks struct {
	url    string
	secret string
	sentBy bool

	mu     sync.Mutex
	asked  int // WebhookSentBy calls
	log    []WebhookAttempt
	gotMsg int // Webhook calls
}

func (f *fakeWebhooks) Webhook(context.Context, int64, string) (*Webhook, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gotMsg++
	return &Webhook{URL: f.url, Secrets: []string{f.secret}, ID: "msg_1", Payload: []byte(`{"type":"room.agreed"}`)}, nil
}

func (f *fakeWebhooks) WebhookSentBy(context.Context, int64, string, int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	return f.sentBy, nil
}

func (f *fakeWebhooks) RecordWebhook(_ context.Context, a WebhookAttempt) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, a)
	return nil
}

// TestWebhookWorkerOutcomes: what River is told and what the log says,
// through the real sender to a real endpoint, for a 2xx, a failure worth
// a retry, the last attempt's failure, a message that cannot be signed
// (not retried), and a job River gives back after its process died once
// the log says its message was delivered (not sent again; a job fetched
// for the first time does not read the log).
func TestWebhookWorkerOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var status atomic.Int32
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		posts.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	inserter, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		status  int
		secret  string
		attempt int // the attempt worked (River adds one to the job's)
		by      []string
		sentBy  bool
		event   river.EventKind
		posted  int32
		logged  Status // "": nothing logged
		checked int    // log reads
	}{
		{"a 2xx", 204, secret, 1, nil, false, river.EventKindJobCompleted, 1, StatusSent, 0},
		{"a 500, retried", 500, secret, 1, nil, false, river.EventKindJobFailed, 1, StatusRetrying, 0},
		{"a 500 at the last attempt", 500, secret, 8, []string{"a"}, false, river.EventKindJobFailed, 1, StatusFailed, 1},
		{"a message that cannot be signed", 204, "whsec_!", 1, nil, false, river.EventKindJobCancelled, 0, StatusFailed, 0},
		{"rescued after its delivery", 204, secret, 2, []string{"a"}, true, river.EventKindJobCompleted, 0, "", 1},
		{"rescued before its delivery", 204, secret, 2, []string{"a"}, false, river.EventKindJobCompleted, 1, StatusSent, 1},
	} {
		status.Store(int32(c.status))
		posts.Store(0)
		hooks := &fakeWebhooks{url: srv.URL, secret: c.secret, sentBy: c.sentBy}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &WebhookWorker{Webhooks: hooks, Sender: notify.NewWebhookSender(true, nil)})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := func(tx pgx.Tx) (*rivertest.WorkResult, error) {
			defer func() { _ = tx.Rollback(ctx) }()
			ins, err := inserter.InsertTx(ctx, tx, WebhookArgs{AccountID: 1, MessageID: "msg_1"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ins.Job.Attempt, ins.Job.AttemptedBy = c.attempt-1, c.by // WorkJob makes it the next
			return w.WorkJob(ctx, t, tx, ins.Job)
		}(tx)
		if res == nil || res.EventKind != c.event {
			t.Errorf("%s: %v %+v, want River's %s", c.name, err, res, c.event)
			continue
		}
		var logged Status
		if len(hooks.log) == 1 {
			logged = hooks.log[0].Status
		}
		if posts.Load() != c.posted || len(hooks.log) > 1 || logged != c.logged || hooks.asked != c.checked {
			t.Errorf("%s: %d posted, log %+v, log read %d times; want %d posted, logged %q, read %d times",
				c.name, posts.Load(), hooks.log, hooks.asked, c.posted, c.logged, c.checked)
		}
	}
}
