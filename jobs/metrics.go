package jobs

import (
	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Metrics counts the jobs a process worked, by kind and outcome, and how
// long each attempt ran, by kind. It hears River's events (Watch), so the
// outcome is the one River recorded: a failed attempt is "retried" or
// "discarded" as River decided. It is a prometheus.Collector: register it
// where /metrics is served.
type Metrics struct {
	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// deliveries are the jobs that send to someone outside (mail, push,
// webhooks; the mail to the owners of a webhook Taasky disabled too),
// whose failures an operator's alert counts: their series exist at zero
// from the start (NewMetrics). A series born at 1 is invisible to
// Prometheus's increase() until its second count (its first sample is the
// start), so the first failures after a process started, on a new
// installation or after a deploy, went uncounted: the suggested
// TaaskyMailNotTaken needed a fourth refusal to see three.
var deliveries = []string{EmailArgs{}.Kind(), InviteArgs{}.Kind(), MemberInviteArgs{}.Kind(),
	PersonReminderArgs{}.Kind(), PushArgs{}.Kind(), WebhookArgs{}.Kind(), WebhookDisabledArgs{}.Kind()}

// outcomes are the values of taasky_jobs_total's outcome label (outcome).
var outcomes = []string{"completed", "retried", "discarded", "cancelled", "snoozed", "interrupted"}

// NewMetrics returns the job metrics, all at zero, the deliveries'
// series there from the start.
func NewMetrics() *Metrics {
	m := &Metrics{
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taasky_jobs_total",
			Help: "Job attempts worked by this process, by kind and outcome (completed, retried, discarded, cancelled, snoozed, interrupted)."},
			[]string{"kind", "outcome"}),
		// Jobs take milliseconds to seconds: an SMTP send times out in 15 s,
		// a job in 30 s (River's JobTimeout).
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "taasky_job_duration_seconds",
			Help:    "Time a job attempt ran in its worker, by kind.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 15, 30}},
			[]string{"kind"}),
	}
	for _, kind := range deliveries {
		for _, o := range outcomes {
			m.jobs.WithLabelValues(kind, o)
		}
	}
	return m
}

// Describe is half of prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.jobs.Describe(ch)
	m.duration.Describe(ch)
}

// Collect is the other half of prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.jobs.Collect(ch)
	m.duration.Collect(ch)
}

// Watch counts the jobs client works from now until it stops (or until
// the returned func is called). The client must have queues to work:
// River has no events to give otherwise.
//
// River drops events that a subscriber has not taken when 1,000 wait;
// counting one takes microseconds, so none wait that long.
func (m *Metrics) Watch(client *river.Client[pgx.Tx]) (stop func()) {
	events, stop := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed, river.EventKindJobInterrupted)
	go func() {
		for ev := range events { // closed when client stops, or by stop
			m.count(ev)
		}
	}()
	return stop
}

func (m *Metrics) count(ev *river.Event) {
	if ev.Job == nil {
		return
	}
	m.jobs.WithLabelValues(ev.Job.Kind, outcome(ev)).Inc()
	if ev.JobStats != nil {
		m.duration.WithLabelValues(ev.Job.Kind).Observe(ev.JobStats.RunDuration.Seconds())
	}
}

// outcome names what became of a job attempt.
func outcome(ev *river.Event) string {
	switch ev.Kind {
	case river.EventKindJobCompleted:
		return "completed"
	case river.EventKindJobFailed:
		if ev.Job.State == rivertype.JobStateDiscarded {
			return "discarded" // out of attempts
		}
		return "retried" // retryable, or available when the retry is due at once
	case river.EventKindJobCancelled:
		return "cancelled" // river.JobCancel: given up for good
	case river.EventKindJobSnoozed:
		return "snoozed"
	case river.EventKindJobInterrupted:
		return "interrupted" // the process stopped during the attempt; worked again
	}
	return string(ev.Kind)
}
