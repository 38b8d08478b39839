-- The lines of the delivery log not delivered yet (queued, or retrying
-- after a failed attempt), by user and room: a notification's own
-- statement looks for an earlier message to the same person about the
-- same room still to be delivered, and waits for it (jobs' inOrder), so
-- that after an outage a reminder does not arrive before its request.
-- Partial: most lines are sent within seconds and leave it. A person's
-- lines (person_deliveries) are read by their room's key.
--
-- NO TRANSACTION and CONCURRENTLY: the delivery log is written by every
-- notification; a plain CREATE INDEX would hold its writes for the build
-- (docs/operations.md, "Upgrading").

-- +goose NO TRANSACTION
-- +goose Up
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS notification_deliveries_undelivered;
CREATE INDEX CONCURRENTLY notification_deliveries_undelivered ON notification_deliveries (user_id, room_id, job_id)
    WHERE status IN ('queued', 'retrying');
RESET lock_timeout;

-- +goose Down
DROP INDEX notification_deliveries_undelivered;
