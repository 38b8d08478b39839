package main

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/internal/refusals"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/mcpserver"
)

// metrics is what /metrics exports: the Go runtime and process (memory,
// GC, CPU), the pool, the database statements the process sent (for
// statements per move, with the moves counted by the bench), the MCP tool
// calls (mcpserver.Metrics), the jobs worked (jobs.Metrics) and, once
// watchQueues is called, the jobs waiting in the queues (jobs.QueueMetrics).
type metrics struct {
	registry   *prometheus.Registry
	statements atomic.Int64
	mcp        *mcpserver.Metrics
	jobs       *jobs.Metrics
	queues     *jobs.QueueMetrics
	// refusals counts (and sparingly logs) the requests refused before
	// they reached a tool or the OAuth server's work; nil until
	// openServer sets it.
	refusals *refusals.Refusals
	// refused counts the new connections PostgreSQL refused for want of a
	// free connection (SQLSTATE 53300); log, when set, is told of them
	// (TraceConnectEnd), at most once per refusedLogEvery.
	refused       atomic.Int64
	refusedLogged atomic.Int64 // refused when last logged
	refusedLogAt  atomic.Int64 // unix nanoseconds of that line
	log           *slog.Logger
}

// refusedLogEvery spaces the lines saying PostgreSQL refuses connections:
// under load every request that needs a new connection meets the refusal,
// and its own answer (503, a tool error) is logged where it is made.
const refusedLogEvery = 10 * time.Second

func newMetrics() *metrics {
	m := &metrics{registry: prometheus.NewRegistry(), mcp: mcpserver.NewMetrics(), jobs: jobs.NewMetrics()}
	m.registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "taasky_db_statements_total",
			Help: "SQL statements sent to PostgreSQL by this process."},
			func() float64 { return float64(m.statements.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "taasky_db_connections_refused_total",
			Help: "New connections PostgreSQL refused because its max_connections were taken (SQLSTATE 53300), the pool's, LISTEN's and the lease's."},
			func() float64 { return float64(m.refused.Load()) }),
		m.mcp, m.jobs,
	)
	return m
}

// watchQueues exports the queues' backlog, read from pool when scraped
// (at most every 10 s). Every serving process does, web-only ones
// included: the queues are the installation's, and a web process still
// reports them when no worker is left to (docs/operations.md).
func (m *metrics) watchQueues(pool *pgxpool.Pool, log *slog.Logger) {
	m.queues = jobs.NewQueueMetrics(func(ctx context.Context, queues []string) ([]jobs.QueueLoad, error) {
		backlog, err := app.ReadQueueBacklog(ctx, pool, queues)
		loads := make([]jobs.QueueLoad, len(backlog))
		for i, b := range backlog {
			loads[i] = jobs.QueueLoad(b)
		}
		return loads, err
	}, log)
	m.registry.MustRegister(m.queues)
}

// TraceQueryStart counts a statement (pgx.QueryTracer).
func (m *metrics) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	m.statements.Add(1)
	return ctx
}

// TraceQueryEnd is the other half of pgx.QueryTracer.
func (m *metrics) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchQuery counts each statement of a batch (pgx.BatchTracer): a
// batch is one round trip, but every statement in it is PostgreSQL's work.
func (m *metrics) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	m.statements.Add(1)
}

// TraceBatchStart and TraceBatchEnd complete pgx.BatchTracer.
func (m *metrics) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (m *metrics) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TraceConnectStart is the first half of pgx.ConnectTracer.
func (m *metrics) TraceConnectStart(ctx context.Context, _ pgx.TraceConnectStartData) context.Context {
	return ctx
}

// TraceConnectEnd counts a connection PostgreSQL refused for want of a
// free one (53300) and says so in the log, once per refusedLogEvery with
// the refusals since the last line: the requests that met it are answered
// as in an outage (503 with Retry-After, an MCP tool error), and their
// own lines say only that the database did not answer.
func (m *metrics) TraceConnectEnd(_ context.Context, data pgx.TraceConnectEndData) {
	if !app.TooManyConnections(data.Err) {
		return
	}
	n := m.refused.Add(1)
	if m.log == nil {
		return
	}
	now, last := time.Now().UnixNano(), m.refusedLogAt.Load()
	if last != 0 && now-last < int64(refusedLogEvery) || !m.refusedLogAt.CompareAndSwap(last, now) {
		return
	}
	since := n - m.refusedLogged.Swap(n)
	m.log.Error("PostgreSQL refuses new connections: its max_connections are all taken (SQLSTATE 53300); "+
		"requests that need one are answered 503 with Retry-After (MCP tool calls: a tool error) until one is free. "+
		"Each process opens up to pool_max_conns (50 unless DATABASE_URL sets it) plus 2: raise max_connections or lower pool_max_conns (docs/operations.md \"Connections\")",
		"refused", since, "refused_total", n, "err", data.Err)
}

// clockOffsetWarned is how far a process's clock may be off the
// database's before it says so at start.
const clockOffsetWarned = 2 * time.Second

// clockOffset exports how far this process's clock was ahead of the
// database's at start (taasky_clock_offset_seconds; negative: behind),
// and logs a warning when it is off by more than clockOffsetWarned. The
// rooms' deadlines, invitations and cool-downs follow the database's
// clock; what still reads this process's clock is off by as much
// (docs/operations.md "Clocks").
func (m *metrics) clockOffset(offset time.Duration, log *slog.Logger) {
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "taasky_clock_offset_seconds",
		Help: "How far this process's clock was ahead of PostgreSQL's when it started (negative: behind)."},
		func() float64 { return offset.Seconds() }))
	if offset.Abs() > clockOffsetWarned {
		log.Warn("this process's clock is off PostgreSQL's: fix its time synchronisation (NTP); rooms follow the database's clock, sessions, OAuth tokens, rate limits and job schedules this process's",
			"offset_seconds", offset.Seconds())
	}
}

// mount serves /metrics in Prometheus's text format.
func (m *metrics) mount(a *fiber.App) {
	a.Get("/metrics", fiberhttp.Handler(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})))
}
