package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// CloseDueArgs is the close job a room had before the sweep (SweepArgs)
// took over closing rooms: inserted with the room at its first due moment,
// and snoozed until the deadline when it found the room joined. No code
// inserts it any more; a database migrated from then may still hold such
// jobs, scheduled for months, and its worker stays to finish them.
type CloseDueArgs struct {
	RoomID int64     `json:"room_id"`
	At     time.Time `json:"at"`
}

// Kind is the job's name in River's tables.
func (CloseDueArgs) Kind() string { return "room_close_due" }

// CloseDueWorker finishes an old close job at once, doing nothing: the
// sweep closes the room at its due moment (the rooms' partial index on it
// holds every live room, however it was opened), so the job is moot.
type CloseDueWorker struct {
	river.WorkerDefaults[CloseDueArgs]
}

func (w *CloseDueWorker) Work(context.Context, *river.Job[CloseDueArgs]) error { return nil }
