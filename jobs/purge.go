package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// PurgeArgs deletes what has expired and is kept for nothing: the OAuth
// codes and tokens past their lifetime (a rotated refresh token is kept
// until then, so that its reuse is still caught), the people's sessions
// past their end, and the personal data
// past its retention period (OldData: delivery logs, the dev outbox's
// mail, one-tap tokens, webhook messages, the person's address of rooms that ended; and the
// marks of limits and the caps' counts past theirs). One River periodic job (PurgeJob), inserted by the
// leader every PurgeInterval.
type PurgeArgs struct{}

// Kind is the job's name in River's tables.
func (PurgeArgs) Kind() string { return "purge_expired" }

// InsertOpts: one attempt; the next purge finds whatever a failed one left.
func (PurgeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// PurgeInterval is how often the purge runs.
const PurgeInterval = time.Hour

// PurgeGrace is how long past its expiry a token is kept: a clock a little
// behind on one node never meets a deleted token it still thinks valid.
const PurgeGrace = 24 * time.Hour

// PurgeBatch is how many rows one statement deletes; a purge deletes
// batches until one deletes fewer, or SweepBudget has passed.
const PurgeBatch = 1000

// PurgeJob is the purge's periodic job, for river.Config.PeriodicJobs.
func PurgeJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(PurgeInterval),
		func() (river.JobArgs, *river.InsertOpts) { return PurgeArgs{}, nil },
		&river.PeriodicJobOpts{ID: "purge_expired", RunOnStart: true})
}

// ExpiredTokens is the service as the purge sees the OAuth state:
// PurgeExpired deletes at most limit codes and tokens that expired before
// before, and says how many it deleted.
type ExpiredTokens interface {
	PurgeExpired(ctx context.Context, before time.Time, limit int) (int, error)
}

// ExpiredSessions is the service as the purge sees the people's sessions:
// PurgeExpiredSessions deletes at most limit that expired before before
// (nil: the database's clock, by which sessions end), and says how many
// it deleted.
type ExpiredSessions interface {
	PurgeExpiredSessions(ctx context.Context, before *time.Time, limit int) (int, error)
}

// OldData is the service as the purge sees the data kept for a period:
// PurgeOld deletes what has outlived its period at now, in bounded
// statements, until end has passed (the next purge carries on), and says
// how many rows of each table it deleted.
type OldData interface {
	PurgeOld(ctx context.Context, now, end time.Time) (map[string]int, error)
}

// StuckDeletions is the service as the purge sees the accounts being
// deleted: AccountsBeingDeleted lists those whose deletion began before
// before.
type StuckDeletions interface {
	AccountsBeingDeleted(ctx context.Context, before time.Time) ([]int64, error)
}

// DeletionRequeueAfter is how long an account may be "being deleted"
// before the purge queues its job again (AccountDeleteArgs is unique: an
// account whose job is queued, running or retrying gets none; one whose
// job was discarded after its last attempt, or lost, does).
const DeletionRequeueAfter = time.Hour

// RetentionBudget is how long one purge may spend on OldData, after the
// OAuth tokens (SweepBudget): both within the River client's JobTimeout.
const RetentionBudget = 15 * time.Second

// PurgeWorker runs PurgeArgs.
type PurgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	Tokens ExpiredTokens
	// Data is the personal data kept for a period; nil: none is purged.
	Data OldData
	// Sessions are the people's sign-ins, deleted past their end like
	// the OAuth tokens (nil: none are).
	Sessions ExpiredSessions
	// Deletions are the accounts being deleted, whose jobs the purge
	// queues again when they are stuck (nil: none; only when the job runs
	// in a River client, which inserts them).
	Deletions StuckDeletions
	Log       *slog.Logger
	// Now is the clock (time.Now if nil).
	Now func() time.Time
}

func (w *PurgeWorker) Work(ctx context.Context, _ *river.Job[PurgeArgs]) error {
	if w.Tokens == nil {
		return errors.New("purge: the worker is not wired to the service")
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	before := now().Add(-PurgeGrace)
	n, err := sweepSteps(ctx, time.Now().Add(SweepBudget), func(ctx context.Context, limit int) (int, error) {
		return w.Tokens.PurgeExpired(ctx, before, limit)
	}, PurgeBatch)
	if n > 0 && w.Log != nil {
		w.Log.Info("purge", "oauth_tokens_deleted", n)
	}
	if err != nil {
		err = fmt.Errorf("purge: oauth tokens: %w", err)
	}
	if w.Sessions != nil {
		n, serr := sweepSteps(ctx, time.Now().Add(SweepBudget), func(ctx context.Context, limit int) (int, error) {
			var at *time.Time // the database's clock, unless a test's is given
			if w.Now != nil {
				t := w.Now()
				at = &t
			}
			return w.Sessions.PurgeExpiredSessions(ctx, at, limit)
		}, PurgeBatch)
		if n > 0 && w.Log != nil {
			w.Log.Info("purge", "sessions_deleted", n)
		}
		if serr != nil {
			err = errors.Join(err, fmt.Errorf("purge: sessions: %w", serr))
		}
	}
	if w.Data != nil {
		deleted, derr := w.Data.PurgeOld(ctx, now(), time.Now().Add(RetentionBudget))
		if len(deleted) > 0 && w.Log != nil {
			attrs := make([]any, 0, 2*len(deleted))
			for _, table := range slices.Sorted(maps.Keys(deleted)) {
				attrs = append(attrs, table+"_deleted", deleted[table])
			}
			w.Log.Info("purge: retention", attrs...)
		}
		if derr != nil {
			err = errors.Join(err, fmt.Errorf("purge: %w", derr))
		}
	}
	if w.Deletions != nil {
		n, derr := w.requeueDeletions(ctx, now().Add(-DeletionRequeueAfter))
		if n > 0 && w.Log != nil {
			w.Log.Info("purge: account deletions queued again", "accounts", n)
		}
		if derr != nil {
			err = errors.Join(err, fmt.Errorf("purge: account deletions: %w", derr))
		}
	}
	return err
}

// requeueDeletions queues the job of each account being deleted since
// before that has none, and says how many it queued.
func (w *PurgeWorker) requeueDeletions(ctx context.Context, before time.Time) (int, error) {
	ids, err := w.Deletions.AccountsBeingDeleted(ctx, before)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return 0, err
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: AccountDeleteArgs{AccountID: id}}
	}
	res, err := client.InsertMany(ctx, params)
	n := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			n++
		}
	}
	return n, err
}
