package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// CloseDueArgs closes a room at At if it is still open then: the invitation
// expiry (72 hours after the open) or the lapse at the room's deadline.
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
// room if it is due at now and does nothing otherwise.
type RoomCloser interface {
	CloseDue(ctx context.Context, roomID int64) error
}

// CloseDueWorker runs CloseDueArgs.
type CloseDueWorker struct {
	river.WorkerDefaults[CloseDueArgs]
	Rooms RoomCloser
}

func (w *CloseDueWorker) Work(ctx context.Context, job *river.Job[CloseDueArgs]) error {
	return w.Rooms.CloseDue(ctx, job.Args.RoomID)
}
