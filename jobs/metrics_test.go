package jobs

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/pgtest"
)

// outcomeArgs is a job that ends as Do says.
type outcomeArgs struct {
	Do string `json:"do"`
}

func (outcomeArgs) Kind() string { return "metrics_outcome" }

type outcomeWorker struct {
	river.WorkerDefaults[outcomeArgs]
}

func (outcomeWorker) Work(_ context.Context, job *river.Job[outcomeArgs]) error {
	switch job.Args.Do {
	case "complete":
		return nil
	case "fail":
		return errors.New("try again")
	case "cancel":
		return river.JobCancel(errors.New("never again"))
	case "snooze":
		return river.JobSnooze(time.Hour)
	}
	return errors.New("unknown outcome " + job.Args.Do)
}

// NextRetry holds a failed job back for an hour: it is worked once here.
func (outcomeWorker) NextRetry(*river.Job[outcomeArgs]) time.Time { return time.Now().Add(time.Hour) }

// TestJobsCounted: /metrics counts each job River worked by kind and with
// the outcome River recorded, and times each attempt.
func TestJobsCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	workers := river.NewWorkers()
	river.AddWorker(workers, outcomeWorker{})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Workers: workers, Logger: slog.New(slog.DiscardHandler),
		Queues: Queues(5, 5), FetchCooldown: FetchCooldown})
	if err != nil {
		t.Fatal(err)
	}
	m := NewMetrics()
	registry := prometheus.NewRegistry()
	registry.MustRegister(m)
	web := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	defer web.Close()

	m.Watch(client)
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Stop(ctx) }()
	for _, job := range []struct {
		do          string
		maxAttempts int
	}{{"complete", 0}, {"fail", 2}, {"fail", 3}, {"fail", 1}, {"cancel", 0}, {"snooze", 0}} {
		if _, err := client.Insert(ctx, outcomeArgs{Do: job.do}, &river.InsertOpts{MaxAttempts: job.maxAttempts}); err != nil {
			t.Fatal(err)
		}
	}

	var s metricstest.Sample
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s = metricstest.Scrape(t, web.URL)
		var n float64
		for _, o := range outcomes {
			v, _ := s.Value("taasky_jobs_total", "kind", "metrics_outcome", "outcome", o)
			n += v
		}
		if n >= 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v of 6 jobs counted after 15 s", n)
		}
	}
	for o, want := range map[string]float64{"completed": 1, "retried": 2, "discarded": 1, "cancelled": 1, "snoozed": 1, "interrupted": 0} {
		if got, _ := s.Value("taasky_jobs_total", "kind", "metrics_outcome", "outcome", o); got != want {
			t.Errorf("taasky_jobs_total{outcome=%q} = %v, want %v", o, got, want)
		}
	}
	if n := s.Get(t, "taasky_job_duration_seconds_count", "kind", "metrics_outcome"); n != 6 {
		t.Errorf("%v attempts timed, want 6", n)
	}
	if sum := s.Get(t, "taasky_job_duration_seconds_sum", "kind", "metrics_outcome"); sum <= 0 || sum > 5 {
		t.Errorf("the attempts ran %v s in all", sum)
	}
}

// TestDeliveriesCountedFromZero: before any job ran, /metrics has each
// delivery's series at 0 (a mail, an invitation, a push, a webhook, the
// mail that a webhook was disabled, by outcome), so the first refusals
// after a start are an increase that Prometheus sees: a series that first
// appears at 1 counts only from its second (the suggested
// TaaskyMailNotTaken needed a fourth refused mail). Kinds nothing alerts
// on are not made up front.
func TestDeliveriesCountedFromZero(t *testing.T) {
	registry := prometheus.NewRegistry()
	registry.MustRegister(NewMetrics())
	web := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	defer web.Close()
	s := metricstest.Scrape(t, web.URL)
	for _, kind := range []string{"notify_email", "notify_invite", "member_invite", "notify_person_reminder", "notify_push", "webhook", "webhook_disabled"} {
		for _, o := range []string{"completed", "retried", "cancelled", "discarded"} {
			if v, ok := s.Value("taasky_jobs_total", "kind", kind, "outcome", o); !ok || v != 0 {
				t.Errorf("taasky_jobs_total{kind=%q,outcome=%q} before any job: %v (present %v), want 0", kind, o, v, ok)
			}
		}
	}
	if _, ok := s.Value("taasky_jobs_total", "kind", "sweep_due", "outcome", "completed"); ok {
		t.Error("the sweep's series made before it ran: only deliveries start at zero")
	}
}
