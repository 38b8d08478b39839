package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
)

// QueueNames are the River queues the working processes work (Queues).
var QueueNames = []string{river.QueueDefault, QueueOutbound}

// QueueLoad is what waits in one queue when it is read: the jobs ready to
// run now (available, due), how long ago the oldest of them fell due
// (0 when none), and the jobs waiting for a retry (retryable).
type QueueLoad struct {
	Queue              string
	Ready              int64
	OldestReadySeconds float64
	Retrying           int64
}

// QueueReadEvery is the least time between two reads of the queues by one
// process, however often /metrics is scraped.
const QueueReadEvery = 10 * time.Second

// queueReadTimeout bounds a read, within a scrape (Prometheus waits 10 s
// by default).
const queueReadTimeout = 3 * time.Second

// QueueMetrics exports, per queue, the jobs ready to run now, the age of
// the oldest of them, and the jobs being retried: what an operator alerts
// on when jobs are not being worked (no worker running, workers stuck).
// The queue is the installation's, so every process reports the same
// values. It reads them with read when scraped, at most once per Every;
// a failed read keeps the values of the last one that worked (none before
// the first), is logged once, and fails nothing. It is a
// prometheus.Collector.
type QueueMetrics struct {
	read func(ctx context.Context, queues []string) ([]QueueLoad, error)
	log  *slog.Logger
	// Every is the least time between two reads (QueueReadEvery).
	Every time.Duration

	mu      sync.Mutex
	readAt  time.Time // the last read, worked or not
	last    []QueueLoad
	failing bool // the last read failed (and that was logged)

	ready, oldest, retrying *prometheus.Desc
}

// NewQueueMetrics returns the queue metrics, read with read.
func NewQueueMetrics(read func(ctx context.Context, queues []string) ([]QueueLoad, error), log *slog.Logger) *QueueMetrics {
	label := []string{"queue"}
	return &QueueMetrics{read: read, log: log, Every: QueueReadEvery,
		ready: prometheus.NewDesc("taasky_jobs_ready",
			"Jobs ready to run now (River state available, scheduled_at reached), by queue: the installation's, read from the database.", label, nil),
		oldest: prometheus.NewDesc("taasky_jobs_ready_oldest_seconds",
			"Seconds since the oldest ready job of the queue fell due (0 when none is ready).", label, nil),
		retrying: prometheus.NewDesc("taasky_jobs_retryable",
			"Jobs waiting to be retried after a failed attempt (River state retryable), by queue.", label, nil),
	}
}

// Describe is half of prometheus.Collector.
func (m *QueueMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.ready
	ch <- m.oldest
	ch <- m.retrying
}

// Collect is the other half of prometheus.Collector: it reads the queues
// if the last read is Every old, then exports what the last good read
// found.
func (m *QueueMetrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock() // scrapes at once wait for one read
	defer m.mu.Unlock()
	if m.readAt.IsZero() || time.Since(m.readAt) >= m.Every {
		m.readAt = time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), queueReadTimeout)
		loads, err := m.read(ctx, QueueNames)
		cancel()
		switch {
		case err != nil && !m.failing:
			m.failing = true
			m.log.Warn("cannot read the job queues for /metrics: their series keep the last values read", "err", err)
		case err == nil:
			if m.failing {
				m.failing = false
				m.log.Info("the job queues are read for /metrics again")
			}
			m.last = loads
		}
	}
	for _, l := range m.last {
		ch <- prometheus.MustNewConstMetric(m.ready, prometheus.GaugeValue, float64(l.Ready), l.Queue)
		ch <- prometheus.MustNewConstMetric(m.oldest, prometheus.GaugeValue, l.OldestReadySeconds, l.Queue)
		ch <- prometheus.MustNewConstMetric(m.retrying, prometheus.GaugeValue, float64(l.Retrying), l.Queue)
	}
}
