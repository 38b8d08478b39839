-- Rooms, their two parties, the append-only log of their events, the human
-- confirmations they wait for, and the schemas each account has seen.
-- Room tables are keyed by room_id first (distributable by room with Citus);
-- account-owned tables by account_id first.

-- +goose Up
CREATE TABLE rooms (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id       bigint NOT NULL REFERENCES accounts (id),   -- the initiator's account
    invite_code_hash bytea NOT NULL UNIQUE CHECK (octet_length(invite_code_hash) = 32),
    title            text CHECK (char_length(title) BETWEEN 1 AND 120),
    state            text NOT NULL CHECK (state IN ('draft', 'awaiting', 'agreed', 'closed')),
    closed_reason    text CHECK (closed_reason IN ('rejected', 'cancelled', 'withdrawn', 'expired', 'lapsed')),
    round            integer NOT NULL,
    turn             text CHECK (turn IN ('a', 'b')),
    deadline         timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    seq              integer NOT NULL,       -- events applied
    snapshot         text NOT NULL,          -- negotiation.Room.Snapshot, byte for byte
    expiry_job_id    bigint,                 -- the River job that expires the invitation
    lapse_job_id     bigint,                 -- the River job that lapses the room at its deadline
    opened_at        timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL
);
CREATE INDEX rooms_account_updated ON rooms (account_id, updated_at DESC, id DESC);

-- A party is one side of a room: an agent of an account (or, for side b, a
-- person answering in the browser). Limits are AES-GCM encrypted; the room
-- token is stored as its SHA-256 only.
CREATE TABLE parties (
    room_id        bigint NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    side           text NOT NULL CHECK (side IN ('a', 'b')),
    account_id     bigint REFERENCES accounts (id),
    agent_id       bigint,
    owner_user_id  bigint REFERENCES users (id),   -- the human who confirms for this side
    token_hash     bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    token_salt     bytea NOT NULL,
    limits_enc     bytea NOT NULL,
    schema_fp      text NOT NULL,
    joined_at      timestamptz NOT NULL,
    PRIMARY KEY (room_id, side),
    FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id)
);
CREATE INDEX parties_account_room ON parties (account_id, room_id DESC);

-- The log: every event a room went through, in order. Replaying it through
-- negotiation.Replay must give rooms.snapshot (taasky check).
CREATE TABLE room_events (
    room_id     bigint NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    seq         integer NOT NULL,
    kind        text NOT NULL,
    side        text,
    fingerprint bytea,          -- identifies an agent's move, so a retry is answered, not replayed
    event       text NOT NULL,  -- negotiation.Event as JSON, byte for byte (canonical terms stay canonical)
    at          timestamptz NOT NULL,
    PRIMARY KEY (room_id, seq)
);

-- A move waiting for a party's human, and what became of it.
CREATE TABLE confirmations (
    room_id      bigint NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    id           text NOT NULL,
    side         text NOT NULL CHECK (side IN ('a', 'b')),
    verdict      text NOT NULL,
    subject_hash text,
    status       text NOT NULL CHECK (status IN ('pending', 'applied', 'declined', 'void')),
    why          text,
    requested_at timestamptz NOT NULL,
    decided_at   timestamptz,
    PRIMARY KEY (room_id, id)
);
CREATE UNIQUE INDEX confirmations_one_pending ON confirmations (room_id, side) WHERE status = 'pending';

-- The subject schemas an account has confirmed terms under: a card marks
-- the other side's schema as new until then.
CREATE TABLE seen_schemas (
    account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    fingerprint text NOT NULL,
    seen_at     timestamptz NOT NULL,
    PRIMARY KEY (account_id, fingerprint)
);

-- +goose Down
DROP TABLE seen_schemas;
DROP TABLE confirmations;
DROP TABLE room_events;
DROP TABLE parties;
DROP TABLE rooms;
