-- The lines of the delivery log not delivered yet (queued, or retrying
-- after a failed attempt), by user and room: a notification's job looks
-- for an earlier message to the same person about the same room still to
-- be delivered, and waits for it (jobs' inOrder), so that after an outage
-- a reminder does not arrive before its request. Partial: most lines are
-- sent within seconds and leave it. A person's lines (person_deliveries)
-- are read by their room's key.

-- +goose Up
CREATE INDEX notification_deliveries_undelivered ON notification_deliveries (user_id, room_id, job_id)
    WHERE status IN ('queued', 'retrying');

-- +goose Down
DROP INDEX notification_deliveries_undelivered;
