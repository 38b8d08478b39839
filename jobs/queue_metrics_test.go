package jobs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/taasky/taasky/internal/metricstest"
)

// fakeQueues answers the queue metrics' reads with what it is set to, and
// counts them.
type fakeQueues struct {
	loads []QueueLoad
	err   error
	reads int
}

func (f *fakeQueues) read(_ context.Context, queues []string) ([]QueueLoad, error) {
	f.reads++
	if len(queues) != 2 || queues[0] != "default" || queues[1] != "outbound" {
		return nil, errors.New("asked for queues " + strings.Join(queues, ","))
	}
	return f.loads, f.err
}

func serveQueueMetrics(t *testing.T, m *QueueMetrics) string {
	t.Helper()
	registry := prometheus.NewRegistry()
	registry.MustRegister(m)
	web := httptest.NewServer(promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	t.Cleanup(web.Close)
	return web.URL
}

// TestQueueMetricsReadOncePerPeriod: however often /metrics is scraped,
// the queues are read once per Every; the scrapes in between export the
// values read.
func TestQueueMetricsReadOncePerPeriod(t *testing.T) {
	t.Parallel()
	f := &fakeQueues{loads: []QueueLoad{{"default", 4, 75.5, 1}, {"outbound", 0, 0, 2}}}
	m := NewQueueMetrics(f.read, slog.New(slog.DiscardHandler))
	if m.Every != 10*time.Second {
		t.Errorf("Every = %s, want 10 s", m.Every)
	}
	m.Every = time.Hour // no second read within the test
	url := serveQueueMetrics(t, m)
	for range 5 {
		s := metricstest.Scrape(t, url)
		if v := s.Get(t, "taasky_jobs_ready", "queue", "default"); v != 4 {
			t.Errorf("ready in default: %v", v)
		}
		if v := s.Get(t, "taasky_jobs_ready_oldest_seconds", "queue", "default"); v != 75.5 {
			t.Errorf("oldest ready in default: %v", v)
		}
		if v := s.Get(t, "taasky_jobs_retryable", "queue", "outbound"); v != 2 {
			t.Errorf("retryable in outbound: %v", v)
		}
		f.loads = []QueueLoad{{"default", 99, 99, 99}, {"outbound", 99, 99, 99}} // not read again
	}
	if f.reads != 1 {
		t.Errorf("5 scrapes read the queues %d times, want once", f.reads)
	}
}

// TestQueueMetricsKeepLastValuesOnFailure: a read that fails fails no
// scrape; the series keep the last values read, the failure is logged
// once however many reads fail, and the next read that works is
// exported (and its return logged).
func TestQueueMetricsKeepLastValuesOnFailure(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	f := &fakeQueues{err: errors.New("connection refused")}
	m := NewQueueMetrics(f.read, slog.New(slog.NewTextHandler(&logged, nil)))
	m.Every = 0 // every scrape reads
	url := serveQueueMetrics(t, m)
	if _, ok := metricstest.Scrape(t, url).Value("taasky_jobs_ready", "queue", "default"); ok {
		t.Error("a series before any read worked")
	}
	f.loads, f.err = []QueueLoad{{"default", 3, 12, 0}, {"outbound", 1, 2, 5}}, nil
	metricstest.Scrape(t, url)
	f.loads, f.err = nil, errors.New("connection refused")
	for range 3 {
		s := metricstest.Scrape(t, url) // a 200 (Scrape fails the test otherwise)
		if v := s.Get(t, "taasky_jobs_ready", "queue", "default"); v != 3 {
			t.Errorf("ready in default after a failed read: %v, want the last value, 3", v)
		}
		if v := s.Get(t, "taasky_jobs_retryable", "queue", "outbound"); v != 5 {
			t.Errorf("retryable in outbound after a failed read: %v, want the last value, 5", v)
		}
	}
	if n := strings.Count(logged.String(), "cannot read the job queues"); n != 2 {
		t.Errorf("logged %d failures, want 2 (the first read, then once for the three after it worked):\n%s", n, logged.String())
	}
	f.loads, f.err = []QueueLoad{{"default", 0, 0, 0}, {"outbound", 0, 0, 0}}, nil
	if v := metricstest.Scrape(t, url).Get(t, "taasky_jobs_ready", "queue", "default"); v != 0 {
		t.Errorf("ready in default once read again: %v", v)
	}
	if !strings.Contains(logged.String(), "the job queues are read for /metrics again") {
		t.Errorf("the recovery is not logged:\n%s", logged.String())
	}
	if f.reads != 6 {
		t.Errorf("reads: %d, want 6", f.reads)
	}
}
