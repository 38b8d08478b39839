package app

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// QueueBacklog is what waits in one River queue: the jobs ready to run now
// (available, due), how long the oldest of them has been due, and the jobs
// waiting for a retry after a failure.
type QueueBacklog struct {
	Queue string
	// Ready counts the jobs in state available whose scheduled_at has come.
	Ready int64
	// OldestReadySeconds is how long ago the oldest ready job fell due, by
	// the database's clock (0 when none is ready).
	OldestReadySeconds float64
	// Retrying counts the jobs in state retryable (failed, to run again).
	Retrying int64
}

// queueBacklogSQL reads, for each queue of $1, the ready jobs' count and
// the oldest one's age, and the retryable jobs' count. Each count walks
// River's river_job_prioritized_fetching_index (state, queue, priority,
// scheduled_at, id) within its state and queue: it reads the queue's
// backlog, never the finished jobs (TestQueueBacklogPlan).
const queueBacklogSQL = `SELECT q.queue, a.ready, coalesce(extract(epoch FROM now() - a.oldest), 0)::float8, r.retrying
	FROM unnest($1::text[]) AS q(queue)
	CROSS JOIN LATERAL (SELECT count(*) AS ready, min(j.scheduled_at) AS oldest FROM river_job j
		WHERE j.state = 'available' AND j.queue = q.queue AND j.scheduled_at <= now()) a
	CROSS JOIN LATERAL (SELECT count(*) AS retrying FROM river_job j
		WHERE j.state = 'retryable' AND j.queue = q.queue) r`

// ReadQueueBacklog reads the backlog of each of queues, in one statement.
func ReadQueueBacklog(ctx context.Context, q querier, queues []string) ([]QueueBacklog, error) {
	rows, err := q.Query(ctx, queueBacklogSQL, queues)
	if err != nil {
		return nil, fmt.Errorf("read the job queues' backlog: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[QueueBacklog])
	if err != nil {
		return nil, fmt.Errorf("read the job queues' backlog: %w", err)
	}
	return out, nil
}
