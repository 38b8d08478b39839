-- What falls due by time is found by one periodic sweep (jobs.SweepArgs),
-- not by a River job per room or per confirmation: a room's due moment and
-- a pending confirmation's next reminder are each indexed, partially, so
-- the sweep reads only what is due, however many live rooms wait.
--
-- rooms_due indexes a live room's due moment (negotiation.Room.DueAt): a
-- draft's invitation expiry or deadline, whichever comes first; an awaiting
-- room's deadline. Final rooms are not in it. A move that changes none of
-- state, deadline and expires_at (most moves) stays a HOT update.
--
-- confirmations.remind_at is a pending confirmation's next reminder
-- (negotiation.Reminders), NULL when none is left. The service writes it
-- with the confirmation; a row written without it (the confirmations
-- pending now, whose reminders were River jobs, and any a process of the
-- older code still writes) gets '-infinity', which the sweep takes as
-- "never planned": it plans the next reminder after the moment it sees the
-- row, and sends nothing for the moments already past (their jobs, if they
-- ran, sent them). A constant default adds the column without rewriting
-- the table. The old jobs left in river_job finish as no-ops (jobs.
-- CloseDueWorker, jobs.RemindWorker): River's tables are migrated after
-- these, and are not touched here.

-- +goose Up
CREATE INDEX rooms_due ON rooms ((CASE WHEN state = 'draft' THEN least(expires_at, deadline) ELSE deadline END))
    WHERE state IN ('draft', 'awaiting');
ALTER TABLE confirmations ADD COLUMN remind_at timestamptz DEFAULT '-infinity';
CREATE INDEX confirmations_remind ON confirmations (remind_at) WHERE status = 'pending' AND remind_at IS NOT NULL;

-- +goose Down
DROP INDEX confirmations_remind;
ALTER TABLE confirmations DROP COLUMN remind_at;
DROP INDEX rooms_due;
