-- A room has one close job: scheduled with the room at its first due
-- moment (the invitation's expiry, or the deadline if that comes first);
-- when it finds the room joined and not yet due, it waits until the
-- deadline (River snooze). It is cancelled once the room is final. Rooms
-- opened before this migration also have an expiry job of their own
-- (expiry_job_id), cancelled at the join as before.

-- +goose Up
ALTER TABLE rooms RENAME COLUMN lapse_job_id TO close_job_id;

-- +goose Down
-- The older code lets a joined room's job finish at the invitation's
-- expiry, and the room would not lapse by itself: move the jobs of joined
-- rooms to their deadline. A room still waiting for its invitee keeps its
-- job at the expiry; joined after the rollback, it does not lapse by
-- itself (every move after its deadline is still refused).
UPDATE river_job j SET scheduled_at = r.deadline FROM rooms r
    WHERE j.id = r.close_job_id AND j.state = 'scheduled' AND r.state = 'awaiting' AND r.expiry_job_id IS NULL;
ALTER TABLE rooms RENAME COLUMN close_job_id TO lapse_job_id;
