package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// SweepArgs runs the sweep: what falls due by time (an invitation's expiry,
// a deadline, a reminder) is found through partial indexes on the due
// moment, not by a job per room or per confirmation. One River periodic job
// (SweepJob), inserted by the leader every SweepInterval, so one process at
// a time sweeps; a sweep that overlaps another (a slow one, a leader that
// changed) is safe: each room and confirmation is taken under a lock, and
// what was done is not due any more.
type SweepArgs struct{}

// Kind is the job's name in River's tables.
func (SweepArgs) Kind() string { return "sweep_due" }

// InsertOpts: one attempt. A failed sweep is not retried: the next comes
// within SweepInterval and finds everything the failed one left, since
// nothing leaves the indexes until it is done.
func (SweepArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// SweepInterval is how often the sweep runs. A room closes within about
// SweepInterval of its due moment, plus the job's pickup (milliseconds
// when the insert is announced, River's fetch poll otherwise).
const SweepInterval = time.Second

// SweepBatch is how many rooms, or confirmations, one step of the sweep
// takes; a sweep takes steps until a step finds fewer, or SweepBudget has
// passed, and leaves the rest to the next sweep.
const SweepBatch = 200

// SweepBudget bounds one sweep's work, well inside River's JobTimeout.
const SweepBudget = 5 * time.Second

// SweepJob is the sweep's periodic job, for river.Config.PeriodicJobs. It
// runs at the leader's start too, so nothing waits for a leader's first
// interval.
func SweepJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(SweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return SweepArgs{}, nil },
		&river.PeriodicJobOpts{ID: "sweep_due", RunOnStart: true})
}

// DueRooms is the service as the sweep sees the rooms: CloseDue closes at
// most limit rooms due now (expired invitations, passed deadlines) and
// says how many due rooms it found.
type DueRooms interface {
	CloseDue(ctx context.Context, limit int) (found int, err error)
}

// DueReminders is the service as the sweep sees the reminders: RemindDue
// sends the reminders due now of at most limit pending confirmations and
// at most limit persons' turns, and says how many of them it found due.
type DueReminders interface {
	RemindDue(ctx context.Context, limit int) (found int, err error)
}

// SweepWorker runs SweepArgs: rooms first (a room that closes voids its
// confirmations, which then are reminded of nothing), then reminders.
type SweepWorker struct {
	river.WorkerDefaults[SweepArgs]
	Rooms     DueRooms
	Reminders DueReminders
	Log       *slog.Logger
}

func (w *SweepWorker) Work(ctx context.Context, _ *river.Job[SweepArgs]) error {
	if w.Rooms == nil || w.Reminders == nil {
		return errors.New("sweep: the worker is not wired to the service")
	}
	end := time.Now().Add(SweepBudget)
	// A room that fails to close does not hold back the reminders.
	closed, errClose := sweepSteps(ctx, end, w.Rooms.CloseDue, SweepBatch)
	if errClose != nil {
		errClose = fmt.Errorf("sweep: close due rooms: %w", errClose)
	}
	reminded, errRemind := sweepSteps(ctx, end, w.Reminders.RemindDue, SweepBatch)
	if errRemind != nil {
		errRemind = fmt.Errorf("sweep: reminders: %w", errRemind)
	}
	if (closed > 0 || reminded > 0) && w.Log != nil {
		w.Log.Debug("sweep", "rooms_due", closed, "reminders_due", reminded)
	}
	return errors.Join(errClose, errRemind)
}

// sweepSteps runs step in batches of batch until one finds fewer (all
// that is due is done) or end has passed, and returns how many it found.
func sweepSteps(ctx context.Context, end time.Time, step func(context.Context, int) (int, error), batch int) (int, error) {
	total := 0
	for {
		n, err := step(ctx, batch)
		total += n
		if err != nil || n < batch || !time.Now().Before(end) {
			return total, err
		}
	}
}
