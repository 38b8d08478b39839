-- A person answering in the browser (side b, no account) is reminded
-- before the deadline while it is their turn, at the moments a pending
-- confirmation is (negotiation.Reminders), by the same sweep.
--
-- rooms.person_turn_at is when the turn passed to the room's person (the
-- moment the reminders are counted from), and rooms.person_remind_at
-- their next reminder; both NULL when it is not a person's turn, or they
-- left no address. The move that passes the turn writes them in the
-- room's own statement (updateRoomSQL); any move that ends the turn
-- clears them. rooms_person_remind is partial, like confirmations_remind:
-- a sweep reads only the rooms due, and a move of two agents (NULL to
-- NULL) stays a HOT update.
--
-- A turn that is a person's when this runs is planned as confirmations
-- were by 00013: from the room's last write (the move that passed it, or
-- later), person_remind_at '-infinity' ("never planned"): the first sweep
-- plans the next moment after it, and sends nothing for those past.
--
-- person_deliveries logs the reminders too (topic 'reminder').
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS person_turn_at timestamptz, ADD COLUMN IF NOT EXISTS person_remind_at timestamptz;
-- In a statement of its own: in the ALTER's transaction, every move waited
-- for this UPDATE's scan of the rooms and the index's build.
UPDATE rooms r SET person_turn_at = r.updated_at, person_remind_at = '-infinity'
    WHERE r.state = 'awaiting' AND r.turn = 'b' AND EXISTS (SELECT 1 FROM parties p
        WHERE p.room_id = r.id AND p.side = 'b' AND p.account_id IS NULL AND p.person_email IS NOT NULL);
-- CONCURRENTLY: as 00029 says.
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS rooms_person_remind;
CREATE INDEX CONCURRENTLY rooms_person_remind ON rooms (person_remind_at) WHERE person_remind_at IS NOT NULL;
RESET lock_timeout;
ALTER TABLE person_deliveries DROP CONSTRAINT IF EXISTS person_deliveries_topic_check,
    ADD CONSTRAINT person_deliveries_topic_check CHECK (topic IN ('turn', 'agreed', 'closed', 'reminder')) NOT VALID;
ALTER TABLE person_deliveries VALIDATE CONSTRAINT person_deliveries_topic_check;

-- +goose Down
DELETE FROM person_deliveries WHERE topic = 'reminder';
ALTER TABLE person_deliveries DROP CONSTRAINT person_deliveries_topic_check,
    ADD CONSTRAINT person_deliveries_topic_check CHECK (topic IN ('turn', 'agreed', 'closed'));
DROP INDEX rooms_person_remind;
ALTER TABLE rooms DROP COLUMN person_remind_at, DROP COLUMN person_turn_at;
