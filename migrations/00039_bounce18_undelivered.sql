-- What Taasky emailed for a room's seats and the mail server refused for
-- good (a 5xx, or every attempt used up): the invitation its opener asked
-- Taasky to send (invite_email), and a request to a seat's human to
-- confirm. NULL: nothing refused. A JSON object by side, written by the
-- delivery's worker (app.markUndelivered) and read with the room's row by
-- every seat's statement, so the room view says it without another
-- statement: {"a": {"invite": moment, "request": {"id": confirmation id,
-- "at": moment}}, "b": {...}}. On rooms rather than parties: a column more
-- on parties changed the planner's guess of its rows and the seat's index.

-- +goose Up
ALTER TABLE rooms ADD COLUMN undelivered jsonb;

-- +goose Down
ALTER TABLE rooms DROP COLUMN undelivered;
