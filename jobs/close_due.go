package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// CloseDueArgs closes a room when it is due: at its invitation's expiry
// (72 hours after the open) if nobody joined, at its deadline otherwise.
// At is the first due moment, when the job is scheduled with the room; a
// job that finds the room not yet due waits for the next (a River snooze).
type CloseDueArgs struct {
	RoomID int64     `json:"room_id"`
	At     time.Time `json:"at"`
}

// Kind is the job's name in River's tables.
func (CloseDueArgs) Kind() string { return "room_close_due" }

// InsertOpts schedules the job at its moment, once per room and moment.
func (a CloseDueArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{ScheduledAt: a.At, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RoomCloser is the service as the close worker sees it. CloseDue closes the
// room if it is due now; otherwise wait is how long until it will be (zero:
// never, the room is final).
type RoomCloser interface {
	CloseDue(ctx context.Context, roomID int64) (wait time.Duration, err error)
}

// CloseDueWorker runs CloseDueArgs.
type CloseDueWorker struct {
	river.WorkerDefaults[CloseDueArgs]
	Rooms RoomCloser
}

func (w *CloseDueWorker) Work(ctx context.Context, job *river.Job[CloseDueArgs]) error {
	wait, err := w.Rooms.CloseDue(ctx, job.Args.RoomID)
	if err != nil || wait == 0 {
		return err
	}
	return river.JobSnooze(max(wait, time.Second))
}
