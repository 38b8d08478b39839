package mcpserver

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The outcomes of a tool call, as the metrics label them.
const (
	outcomeOK       = "ok"             // the tool answered
	outcomeRefused  = "refused"        // a tool error the agent can read and act on
	outcomeInternal = "internal_error" // answered "internal error", and logged
	// outcomeNotNow: answered "retry after N s" before the tool was reached
	// (the agent's rate limit, the account's calls at once, a key the
	// database could not check: notNow). Counted without a duration: the
	// tool did not run.
	outcomeNotNow = "not_now"
)

// Metrics counts the tool calls of the servers it is given to (WithMetrics):
// by tool and outcome, and how long each took, by tool. It is a
// prometheus.Collector: register it where /metrics is served. A nil
// *Metrics counts nothing.
type Metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics returns the tool-call metrics, all at zero.
func NewMetrics() *Metrics {
	return &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "taasky_mcp_calls_total",
			Help: "MCP tool calls answered, by tool and outcome (ok, refused: a tool error, internal_error: logged, not_now: told to retry later before the tool ran)."},
			[]string{"tool", "outcome"}),
		// A move takes milliseconds; the buckets reach 10 s for a call
		// that waited on a busy database.
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "taasky_mcp_call_duration_seconds",
			Help:    "Time to answer an MCP tool call, from its arguments to its result, by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}},
			[]string{"tool"}),
	}
}

// Describe is half of prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	m.calls.Describe(ch)
	m.duration.Describe(ch)
}

// Collect is the other half of prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.calls.Collect(ch)
	m.duration.Collect(ch)
}

// known makes every tool's series exist at zero before its first call, so
// that a rate over the first call is not lost.
func (m *Metrics) known(tools []string) {
	for _, name := range tools {
		for _, o := range []string{outcomeOK, outcomeRefused, outcomeInternal, outcomeNotNow} {
			m.calls.WithLabelValues(name, o)
		}
		m.duration.WithLabelValues(name)
	}
}

func (m *Metrics) observe(tool, outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(took.Seconds())
}

// notNow counts a call of tool told to retry later (notNow), if tool is
// one of the server's: any other name would be a series of its own.
func (m *Metrics) notNow(tool string, tools []string) {
	if m != nil && slices.Contains(tools, tool) {
		m.calls.WithLabelValues(tool, outcomeNotNow).Inc()
	}
}
