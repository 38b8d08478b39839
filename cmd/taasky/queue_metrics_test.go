package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/metricstest"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
)

// serveInProcess opens the service as role says on dsn, reading the queues
// at every scrape, and serves it on a port of its own until the test ends;
// it returns the server and its base URL.
func serveInProcess(t *testing.T, dsn string, web, worker bool) (*server, string) {
	t.Helper()
	e := env{"DATABASE_URL": dsn, "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0", "SECRET_KEY": testSecret,
		"OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret", "SHUTDOWN_GRACE": "0"}
	var role config.Role
	if web {
		role |= config.RoleWeb
	}
	if worker {
		role |= config.RoleWorker
	}
	cfg, err := loadConfig(e.get, role)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, newLogger(io.Discard, true), web, worker)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	srv.metrics.queues.Every = 0 // the test's scrapes each read the queues
	ctx, cancel := context.WithCancel(context.Background())
	a, err := srv.webApp(ctx)
	if err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	served := make(chan error, 1)
	go func() { served <- srv.serve(ctx, a, func(a string) { addr <- a }) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Error("serve did not return")
		}
	})
	select {
	case a := <-addr:
		return srv, "http://" + a
	case err := <-served:
		t.Fatalf("serve returned before listening: %v", err)
	}
	return nil, ""
}

// TestQueueMetrics: with no worker running, a web-only process's /metrics
// shows the jobs waiting in each queue (the ready ones, how late the
// oldest is, the retryable ones), not those scheduled ahead; once a
// worker-only process works them, both processes' series fall to 0.
func TestQueueMetrics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewDSN(t)
	web, webURL := serveInProcess(t, dsn, true, false)

	// Ready: 3 in default (90 s late at most), 2 in outbound (30 s late);
	// one scheduled ahead; one in outbound failed once, its retry due.
	// River inserts a job available, due now: its lateness is set here.
	insert := func(queue string, late time.Duration, state string) {
		t.Helper()
		var opts *river.InsertOpts
		if late < 0 {
			opts = &river.InsertOpts{Queue: queue, ScheduledAt: time.Now().Add(-late)}
		} else {
			opts = &river.InsertOpts{Queue: queue}
		}
		res, err := web.river.Insert(ctx, jobs.CloseDueArgs{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if late >= 0 {
			if _, err := web.pool.Exec(ctx, `UPDATE river_job SET state = $2::river_job_state, scheduled_at = now() - $3::interval,
				attempt = CASE WHEN $2::river_job_state = 'retryable' THEN 1 ELSE 0 END WHERE id = $1`, res.Job.ID, state, late); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, late := range []time.Duration{90, 60, 10} {
		insert(river.QueueDefault, late*time.Second, "available")
	}
	insert(river.QueueDefault, -time.Hour, "")
	insert(jobs.QueueOutbound, 30*time.Second, "available")
	insert(jobs.QueueOutbound, 5*time.Second, "available")
	insert(jobs.QueueOutbound, time.Second, "retryable")

	s := metricstest.Scrape(t, webURL+"/metrics")
	for _, want := range []struct {
		name, queue string
		value       float64
	}{
		{"taasky_jobs_ready", "default", 3}, {"taasky_jobs_ready", "outbound", 2},
		{"taasky_jobs_retryable", "default", 0}, {"taasky_jobs_retryable", "outbound", 1},
	} {
		if v := s.Get(t, want.name, "queue", want.queue); v != want.value {
			t.Errorf("%s{queue=%q} = %v, want %v", want.name, want.queue, v, want.value)
		}
	}
	// By the database's clock, at least as late as inserted (an hour: a bound).
	if v := s.Get(t, "taasky_jobs_ready_oldest_seconds", "queue", "default"); v < 90 || v > 3600 {
		t.Errorf("the oldest ready job in default is %v s late, want 90 or a little more", v)
	}
	if v := s.Get(t, "taasky_jobs_ready_oldest_seconds", "queue", "outbound"); v < 30 || v > 3600 {
		t.Errorf("the oldest ready job in outbound is %v s late, want 30 or a little more", v)
	}

	_, workerURL := serveInProcess(t, dsn, false, true)
	for _, url := range []string{webURL, workerURL} {
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			s := metricstest.Scrape(t, url+"/metrics")
			left := 0.0
			for _, name := range []string{"taasky_jobs_ready", "taasky_jobs_ready_oldest_seconds", "taasky_jobs_retryable"} {
				for _, queue := range []string{"default", "outbound"} {
					left += s.Get(t, name, "queue", queue)
				}
			}
			if left == 0 {
				break
			}
			if time.Now().After(deadline) {
				var states []string
				rows, _ := web.pool.Query(ctx, `SELECT queue || ' ' || state FROM river_job ORDER BY id`)
				for rows.Next() {
					var st string
					_ = rows.Scan(&st)
					states = append(states, st)
				}
				rows.Close()
				t.Fatalf("%s/metrics 60 s after a worker started: the queues' series are not all 0; jobs: %v", url, states)
			}
		}
	}
}
