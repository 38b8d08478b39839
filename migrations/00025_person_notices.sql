-- A person who answers an invitation in the browser (side b, no account)
-- is told what happens in their room, at parties.person_email (00004):
-- when it becomes their turn, when it is agreed, when it closes.
-- person_seats keeps what those mails need besides, as the invitation page
-- knew it: the language it was read in (Accept-Language), the time zone
-- their browser told (NULL: never told, the mail writes UTC), and their
-- personal link's token sealed with the server's key (AES-GCM, the room's
-- id as associated data): the token is stored hashed for lookups, and a
-- mail must carry the link itself. A table of its own rather than columns
-- of parties, which every move reads: wider party rows tipped the seat
-- read's generic plan off its token index (TestReadSeatPlan).
--
-- rooms.invite_email is the address an invitation was emailed to
-- (negotiation_open's invite_email): the person received it there, so it
-- is where their updates go unless they give another.
--
-- person_deliveries is a person's delivery log: one row per notification
-- job, as notification_deliveries is for users (who have an id, a
-- settings page and a log to read there). Keyed by room first, like
-- everything that grows with a room.
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- The column's CHECK is added NOT VALID and then validated: a CHECK in
-- the ADD COLUMN scanned every room under the ALTER's exclusive lock.
ALTER TABLE rooms ADD COLUMN IF NOT EXISTS invite_email text,
    DROP CONSTRAINT IF EXISTS rooms_invite_email_check,
    ADD CONSTRAINT rooms_invite_email_check
    CHECK (invite_email = lower(invite_email) AND char_length(invite_email) BETWEEN 3 AND 254) NOT VALID;
ALTER TABLE rooms VALIDATE CONSTRAINT rooms_invite_email_check;
CREATE TABLE IF NOT EXISTS person_seats (
    room_id bigint PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    lang    text NOT NULL DEFAULT '' CHECK (char_length(lang) <= 35),
    zone    text CHECK (char_length(zone) <= 64),
    link    bytea NOT NULL
);

CREATE TABLE IF NOT EXISTS person_deliveries (
    room_id    bigint NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    job_id     bigint NOT NULL,
    channel    text NOT NULL CHECK (channel = 'email'),
    topic      text NOT NULL CHECK (topic IN ('turn', 'agreed', 'closed')),
    recipient  text NOT NULL DEFAULT '',
    status     text NOT NULL CHECK (status IN ('queued', 'sent', 'retrying', 'failed', 'skipped', 'gone')),
    attempts   integer NOT NULL DEFAULT 0,
    error      text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (room_id, job_id)
);

-- +goose Down
DROP TABLE person_deliveries;
DROP TABLE person_seats;
ALTER TABLE rooms DROP COLUMN invite_email;
