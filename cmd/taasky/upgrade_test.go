package main

import (
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
)

// TestWorkerLeavesKindsItDoesNotKnow: during a rolling upgrade the workers
// of two builds share the queues, and a newer build's jobs may be of a
// kind this one has no worker for. Such a job stays available, its
// attempts unspent, for a worker that knows it (River's
// FetchOnlyKnownKinds), instead of failing here attempt after attempt
// (River backs off to hours, then discards it). A job this build knows,
// inserted after it, is worked.
func TestWorkerLeavesKindsItDoesNotKnow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.NewDSN(t)
	web, _ := serveInProcess(t, dsn, true, false)
	var unknown int64
	if err := web.pool.QueryRow(ctx, `INSERT INTO river_job (kind, args, queue, max_attempts, state, scheduled_at)
		VALUES ('a_later_builds_kind', '{}', 'default', 25, 'available', now() - interval '1 second') RETURNING id`).Scan(&unknown); err != nil {
		t.Fatal(err)
	}
	known, err := web.river.Insert(ctx, jobs.CloseDueArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	serveInProcess(t, dsn, false, true)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var state string
		if err := web.pool.QueryRow(ctx, `SELECT state FROM river_job WHERE id = $1`, known.Job.ID).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the known job is %s 60 s after a worker started", state)
		}
	}
	var state string
	var attempt int
	if err := web.pool.QueryRow(ctx, `SELECT state, attempt FROM river_job WHERE id = $1`, unknown).Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	if state != "available" || attempt != 0 {
		t.Errorf("a job of a kind this build does not know: %s after %d attempts, want available after 0", state, attempt)
	}
}
