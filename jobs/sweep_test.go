package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestOldJobsFinishAsNoOps: close and reminder jobs left in a database
// from before the sweep complete at once, without a retry.
func TestOldJobsFinishAsNoOps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	closeJob := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &CloseDueWorker{})
	remindJob := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &RemindWorker{})
	for _, c := range []struct {
		name string
		work func(pgx.Tx) (*rivertest.WorkResult, error)
	}{
		{"close", func(tx pgx.Tx) (*rivertest.WorkResult, error) {
			return closeJob.Work(ctx, t, tx, CloseDueArgs{RoomID: 7, At: at}, nil)
		}},
		{"remind", func(tx pgx.Tx) (*rivertest.WorkResult, error) {
			return remindJob.Work(ctx, t, tx, RemindArgs{RoomID: 7, Side: "b", ConfirmationID: "c1", Before: "24h", At: at}, nil)
		}},
	} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.work(tx)
		_ = tx.Rollback(ctx)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Errorf("an old %s job: %v %+v", c.name, err, res)
		}
	}
}

// TestSweepSteps: a sweep takes batches while they come back full, stops
// at the first short one or when its budget is spent, and reports each
// half's error without the one holding back the other.
func TestSweepSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	due := 2*SweepBatch + 3
	var calls int
	step := func(_ context.Context, limit int) (int, error) {
		calls++
		n := min(due, limit)
		due -= n
		return n, nil
	}
	if n, err := sweepSteps(ctx, time.Now().Add(time.Hour), step, SweepBatch); n != 2*SweepBatch+3 || err != nil || calls != 3 {
		t.Fatalf("%d found in %d steps (%v), want all in 3", n, calls, err)
	}
	due, calls = 5*SweepBatch, 0
	if n, err := sweepSteps(ctx, time.Now(), step, SweepBatch); n != SweepBatch || err != nil || calls != 1 {
		t.Fatalf("with the budget spent: %d found in %d steps (%v), want one step", n, calls, err)
	}

	boom := errors.New("room 9: boom")
	closer := stepFunc(func(context.Context, int) (int, error) { return 1, boom })
	var reminded bool
	reminder := stepFunc(func(context.Context, int) (int, error) { reminded = true; return 0, nil })
	w := &SweepWorker{Rooms: closer, Reminders: reminder}
	err := w.Work(ctx, &river.Job[SweepArgs]{})
	if !errors.Is(err, boom) || !reminded {
		t.Fatalf("a room that fails: %v, reminders swept %v; want the error, and the reminders swept", err, reminded)
	}
	if err := (&SweepWorker{}).Work(ctx, &river.Job[SweepArgs]{}); err == nil {
		t.Fatal("an unwired sweep worked")
	}
}

// TestSweepStepErrors: a step that fails with a full batch ends the sweep
// with its error, though the steps after it would have found nothing
// (the failed room is left to the next sweep, which finds it still due);
// a half wired alone is refused, and reminders that fail are reported as
// rooms that fail are.
func TestSweepStepErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	boom := errors.New("room 9: boom")
	var calls int
	step := func(_ context.Context, limit int) (int, error) {
		calls++
		if calls == 1 {
			return limit, boom
		}
		return 0, nil
	}
	if n, err := sweepSteps(ctx, time.Now().Add(time.Hour), step, SweepBatch); !errors.Is(err, boom) || n != SweepBatch || calls != 1 {
		t.Fatalf("a full batch that fails: %d found in %d steps (%v), want its error after one step", n, calls, err)
	}

	none := stepFunc(func(context.Context, int) (int, error) { return 0, nil })
	for _, w := range []*SweepWorker{{Rooms: none}, {Reminders: none}} {
		if err := w.Work(ctx, &river.Job[SweepArgs]{}); err == nil {
			t.Fatalf("a sweep wired to one half (%+v) worked", w)
		}
	}

	failing := stepFunc(func(context.Context, int) (int, error) { return 1, boom })
	if err := (&SweepWorker{Rooms: none, Reminders: failing}).Work(ctx, &river.Job[SweepArgs]{}); !errors.Is(err, boom) {
		t.Fatalf("reminders that fail: %v, want the error", err)
	}
}

// TestSweepTakesTheBacklog: a sweep that comes after more fell due than a
// batch holds (the sweep ran late, or a burst fell due at once) takes
// every batch in the one run, within its budget, rather than one batch
// per SweepInterval.
func TestSweepTakesTheBacklog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	backlog := func(due int) (stepFunc, *int) {
		calls := 0
		return func(_ context.Context, limit int) (int, error) {
			calls++
			n := min(due, limit)
			due -= n
			return n, nil
		}, &calls
	}
	rooms, roomSteps := backlog(3*SweepBatch + 1)
	reminders, reminderSteps := backlog(2 * SweepBatch)
	if err := (&SweepWorker{Rooms: rooms, Reminders: reminders}).Work(ctx, &river.Job[SweepArgs]{}); err != nil {
		t.Fatal(err)
	}
	if *roomSteps != 4 || *reminderSteps != 3 {
		t.Fatalf("%d steps for the rooms, %d for the reminders; want 4 and 3 (every batch, then a short one)", *roomSteps, *reminderSteps)
	}
}

// stepFunc is a sweep step as both halves of the service.
type stepFunc func(context.Context, int) (int, error)

func (f stepFunc) CloseDue(ctx context.Context, limit int) (int, error)  { return f(ctx, limit) }
func (f stepFunc) RemindDue(ctx context.Context, limit int) (int, error) { return f(ctx, limit) }
