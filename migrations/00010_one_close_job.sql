-- A room has one close job: scheduled with the room at its first due
-- moment (the invitation's expiry, or the deadline if that comes first);
-- when it finds the room joined and not yet due, it waits until the
-- deadline (River snooze). It is cancelled once the room is final. Rooms
-- opened before this migration also have an expiry job of their own
-- (expiry_job_id), cancelled at the join as before.

-- +goose Up
ALTER TABLE rooms RENAME COLUMN lapse_job_id TO close_job_id;

-- +goose Down
ALTER TABLE rooms RENAME COLUMN close_job_id TO lapse_job_id;
