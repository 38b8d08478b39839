-- Signed webhooks (Standard Webhooks): an account's endpoints, the
-- messages each one is sent (one per event and endpoint: its webhook-id),
-- and every attempt at sending one (the delivery log in Settings).

-- +goose Up
-- secrets: the signing secrets (whsec_…), sealed with AES-GCM under a key
-- derived from SECRET_KEY; during a rotation, the previous one too, until
-- its end. failing_since: the first failed attempt of the current run of
-- failures (a success clears it); an endpoint failing for days is disabled.
CREATE TABLE webhook_endpoints (
    account_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    url           text NOT NULL CHECK (url ~ '^https?://' AND char_length(url) <= 2000),
    events        text[] NOT NULL CHECK (cardinality(events) > 0),
    secrets       bytea NOT NULL,
    created_by    bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at    timestamptz NOT NULL,
    rotated_at    timestamptz,
    failing_since timestamptz,
    disabled_at   timestamptz,
    disabled_why  text,
    PRIMARY KEY (account_id, id)
);

-- One row per event and endpoint, written in the move's transaction. id is
-- the webhook-id: every attempt and every "Send again" carries it. payload
-- is fixed at the first attempt, so that every send of one id is the same
-- bytes.
CREATE TABLE webhook_messages (
    account_id  bigint NOT NULL,
    id          text NOT NULL,
    endpoint_id bigint NOT NULL,
    event       text NOT NULL,
    room_id     bigint NOT NULL,
    side        text NOT NULL CHECK (side IN ('a', 'b')),
    seq         integer NOT NULL,
    occurred_at timestamptz NOT NULL,
    payload     bytea,
    status      text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'retrying', 'failed', 'skipped')),
    attempts    integer NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, endpoint_id) REFERENCES webhook_endpoints (account_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_messages_endpoint ON webhook_messages (account_id, endpoint_id, occurred_at DESC, id);

-- Every attempt: when, how long, the HTTP status (null: no answer), the
-- error. Never the payload or a secret.
CREATE TABLE webhook_attempts (
    account_id  bigint NOT NULL,
    message_id  text NOT NULL,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    job_id      bigint NOT NULL,
    attempt     integer NOT NULL,
    at          timestamptz NOT NULL,
    duration_ms integer NOT NULL,
    status_code integer,
    error       text NOT NULL DEFAULT '',
    PRIMARY KEY (account_id, message_id, id),
    FOREIGN KEY (account_id, message_id) REFERENCES webhook_messages (account_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_messages;
DROP TABLE webhook_endpoints;
