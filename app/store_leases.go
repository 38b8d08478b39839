package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A worker process holds a lease for as long as it lives: a session-level
// advisory lock named after its River client ID, on a connection of its
// own. PostgreSQL releases it the moment that connection ends, so when a
// process is killed (kill -9, a crash, a machine gone once TCP notices),
// the jobs River shows "running" under its ID belong to nobody, and
// another worker gives them back at once instead of waiting for River's
// rescuer (RescueStuckJobsAfter, a minute or more). Only IDs with the
// lease prefix are looked at: a process that holds no lease is never taken
// for dead.

// leaseLockClass is the advisory lock's first key ("taak"), keeping the
// leases apart from any other advisory lock; the second is the ID's hash.
const leaseLockClass = 0x7461616b

// LeasePrefix starts the River client ID of every process that holds a
// lease.
const LeasePrefix = "taasky-lease-"

// HoldLease holds the lease of id until ctx ends, reconnecting whenever
// its connection breaks (a failover: the new primary has no locks until
// then). held is called each time the lock is taken. It returns when ctx
// is done.
func HoldLease(ctx context.Context, cc *pgx.ConnConfig, id string, log *slog.Logger, held func()) {
	for ctx.Err() == nil {
		err := holdOnce(ctx, cc, id, held)
		if ctx.Err() != nil {
			return
		}
		log.Warn("the worker's lease connection broke; taking it again", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func holdOnce(ctx context.Context, cc *pgx.ConnConfig, id string, held func()) error {
	connectCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(connectCtx, cc)
	cancel()
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Not a try: after a failover the lock may still be held for a moment
	// by this process's previous session, which the server has not yet
	// seen end.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, hashtext($2))`, int32(leaseLockClass), id); err != nil {
		return err
	}
	held()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := conn.Ping(pingCtx)
		cancel()
		if err != nil {
			return err
		}
	}
}

// orphansWhere selects the running jobs whose latest attempt is by a
// lease holder whose lease is gone ($2: leaseLockClass) and that began at
// least $1 ago.
const orphansWhere = `j.state = 'running' AND j.attempted_at < now() - $1::interval
	AND j.attempted_by[array_length(j.attempted_by, 1)] LIKE '` + LeasePrefix + `%'
	AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid = $2::bigint::oid AND l.objsubid = 2
		AND l.objid = (hashtext(j.attempted_by[array_length(j.attempted_by, 1)])::bigint & 4294967295)::oid)`

// OrphanedJobs lists the running jobs whose worker's lease is gone, and
// that have run at least minAge.
func OrphanedJobs(ctx context.Context, pool *pgxpool.Pool, minAge time.Duration) ([]int64, error) {
	rows, err := pool.Query(ctx, `SELECT j.id FROM river_job j WHERE `+orphansWhere+` ORDER BY j.id`, minAge, leaseLockClass)
	if err != nil {
		return nil, fmt.Errorf("list orphaned jobs: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// GiveBackOrphans makes the jobs of ids that are still orphaned available
// at once (or discarded if that was their last attempt), noting why in the
// job's errors as River's rescuer does, and returns those it gave back.
func GiveBackOrphans(ctx context.Context, pool *pgxpool.Pool, ids []int64, minAge time.Duration) ([]int64, error) {
	rows, err := pool.Query(ctx, `UPDATE river_job j SET
			state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded'::river_job_state ELSE 'available'::river_job_state END,
			finalized_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
			scheduled_at = now(),
			errors = array_append(j.errors, jsonb_build_object('at', now(), 'attempt', j.attempt,
				'error', 'the process working this job died (its lease is gone): given back', 'trace', ''))
		WHERE j.id = ANY($3) AND `+orphansWhere+` RETURNING j.id`, minAge, leaseLockClass, ids)
	if err != nil {
		return nil, fmt.Errorf("give back orphaned jobs: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}
