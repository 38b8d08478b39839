package app

import (
	"context"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestQueueBacklogPlan: the queue metrics' statement, which every process
// runs every 10 s at most, reads each queue's ready and retryable jobs
// through River's river_job_prioritized_fetching_index, under the generic
// plan, beside 100,000 finished jobs it never reads; and it counts what it
// should: a job scheduled ahead, running or finished is not ready.
func TestQueueBacklogPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	exec := func(sql string) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	job := `INSERT INTO river_job (state, queue, kind, args, max_attempts, priority, scheduled_at, finalized_at, attempt) SELECT `
	exec(job + `'completed', CASE WHEN g % 3 = 0 THEN 'outbound' ELSE 'default' END, 'close_due', '{}', 25, 1,
		now() - interval '1 hour', now(), 1 FROM generate_series(1, 100000) g`)
	exec(job + `'discarded', 'default', 'close_due', '{}', 25, 1, now() - interval '2 hours', now(), 25 FROM generate_series(1, 1000) g`)
	// Ready: 20 in default (the oldest 120 s late), 10 in outbound (30 s),
	// of every priority.
	exec(job + `'available', 'default', 'close_due', '{}', 25, 1 + g % 4, now() - g * interval '6 seconds', NULL, 0 FROM generate_series(1, 20) g`)
	exec(job + `'available', 'outbound', 'webhook', '{}', 25, 1 + g % 4, now() - g * interval '3 seconds', NULL, 0 FROM generate_series(1, 10) g`)
	// Not ready: scheduled ahead, running; retryable: 3 in outbound.
	exec(job + `'scheduled', 'default', 'close_due', '{}', 25, 1, now() + interval '1 hour', NULL, 0 FROM generate_series(1, 500) g`)
	exec(job + `'running', 'default', 'close_due', '{}', 25, 1, now() - interval '1 hour', NULL, 1 FROM generate_series(1, 5) g`)
	exec(job + `'retryable', 'outbound', 'webhook', '{}', 25, 1, now() + interval '1 minute', NULL, 1 FROM generate_series(1, 3) g`)
	exec(`ANALYZE river_job`)

	got, err := ReadQueueBacklog(ctx, pool, []string{"default", "outbound", "empty"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Queue != "default" || got[0].Ready != 20 || got[0].Retrying != 0 ||
		got[1].Queue != "outbound" || got[1].Ready != 10 || got[1].Retrying != 3 ||
		got[2].Queue != "empty" || got[2].Ready != 0 || got[2].OldestReadySeconds != 0 || got[2].Retrying != 0 {
		t.Errorf("backlog %+v", got)
	}
	// By the database's clock, read a moment after the rows were written.
	if len(got) == 3 && (got[0].OldestReadySeconds < 120 || got[0].OldestReadySeconds > 3600 || got[1].OldestReadySeconds < 30 || got[1].OldestReadySeconds > 3600) {
		t.Errorf("oldest ready: %v s in default (want 120 or a little more), %v s in outbound (want 30 or more)", got[0].OldestReadySeconds, got[1].OldestReadySeconds)
	}

	plan := genericPlan(t, ctx, pool, queueBacklogSQL, true, "{default,outbound}")
	scans := 0
	plan.walk(func(n *planNode) {
		if n.Relation != "river_job" {
			return
		}
		scans++
		if n.Index != "river_job_prioritized_fetching_index" {
			t.Errorf("a %s of river_job (index %q), not River's river_job_prioritized_fetching_index", n.Type, n.Index)
			return
		}
		if !strings.Contains(n.IndexCond, "state = '") || !strings.Contains(n.IndexCond, "queue = q.queue") {
			t.Errorf("river_job_prioritized_fetching_index's condition %q lacks the state and the queue", n.IndexCond)
		}
		// Per queue (loop): the queue's ready or retryable jobs, no more.
		if n.ActualRows > 20 || n.Removed > 0 {
			t.Errorf("%s read %v rows (%v thrown away): more than a queue's backlog", n.Index, n.ActualRows, n.Removed)
		}
	})
	if scans != 2 {
		t.Errorf("river_job scanned %d times, want twice (ready, retryable)", scans)
	}
	if t.Failed() {
		t.Logf("generic plan:\n%s", plan)
	}
}
