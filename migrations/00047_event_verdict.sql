-- A propose event's verdict beside its JSON, so that a move or a read can
-- leave out the terms of every offer and counter but the latest (the log
-- of a room with terms of the largest size holds megabytes) and still know
-- each side's latest offer or counter (the cool-down) and count the
-- rounds. Written with every event from this migration on; NULL for the
-- events logged before, which are read whole as before (app/store_rooms.go,
-- roomLogLight). A catalog change only: no default, no scan.

-- +goose Up
ALTER TABLE room_events ADD COLUMN verdict text;

-- +goose Down
ALTER TABLE room_events DROP COLUMN verdict;
