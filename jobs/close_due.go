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
// room if it is due now; otherwise later is when it will be (zero: never,
// the room is final).
type RoomCloser interface {
	CloseDue(ctx context.Context, roomID int64) (later time.Time, err error)
}

// CloseDueWorker runs CloseDueArgs.
type CloseDueWorker struct {
	river.WorkerDefaults[CloseDueArgs]
	Rooms RoomCloser
}

func (w *CloseDueWorker) Work(ctx context.Context, job *river.Job[CloseDueArgs]) error {
	later, err := w.Rooms.CloseDue(ctx, job.Args.RoomID)
	if err != nil || later.IsZero() {
		return err
	}
	return river.JobSnooze(max(time.Until(later), time.Second))
}
