-- A person who deletes their profile (or whose account is deleted) is
-- forgotten in the rooms they answered in the browser with the same
-- address, and in those they were invited to by it: these partial indexes
-- find those rows without reading every room. They hold only the rows with
-- an address (a person's seat, a room whose invitation was emailed), and
-- no move changes the column, so a move's update stays a HOT update.
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- CONCURRENTLY: a plain CREATE INDEX held off every write to its table for
-- the build, and the two in one transaction deadlocked with opens (which
-- write rooms, then parties). An index a stopped build left invalid is
-- dropped and built again.
-- A concurrent build waits for the transactions older than it (a dump's
-- included) without holding any move back: it waits for them, not for
-- lock_timeout (taasky migrate's 2 s), which would throw the build away.
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS parties_person_email;
CREATE INDEX CONCURRENTLY parties_person_email ON parties (lower(person_email)) WHERE person_email IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS rooms_invite_email;
CREATE INDEX CONCURRENTLY rooms_invite_email ON rooms (lower(invite_email)) WHERE invite_email IS NOT NULL;
RESET lock_timeout;

-- +goose Down
DROP INDEX rooms_invite_email;
DROP INDEX parties_person_email;
