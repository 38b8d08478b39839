-- Notifications: what each human wants to be told on which channel, their
-- browsers' Web Push subscriptions, the log of every delivery (what the
-- human sees in their settings), and the dev outbox that keeps mail when no
-- SMTP server is configured. Keyed by user first: a user's rows stay
-- together (distributable by user with Citus).

-- +goose Up

-- No row: everything on. A confirmation request ("requests") is never
-- unsubscribed away by a List-Unsubscribe link; only notices (reminders,
-- agreed, closed, no deal possible) are.
CREATE TABLE notification_prefs (
    user_id        bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    email_requests boolean NOT NULL DEFAULT true,
    email_notices  boolean NOT NULL DEFAULT true,
    push_requests  boolean NOT NULL DEFAULT true,
    push_notices   boolean NOT NULL DEFAULT true,
    updated_at     timestamptz NOT NULL
);

-- One row per browser (PushSubscription): its endpoint is its identity; a
-- browser that subscribes again replaces its keys, and belongs to one user
-- at a time. A push service answering 404 or 410 removes the row.
CREATE TABLE push_subscriptions (
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id           bigint GENERATED ALWAYS AS IDENTITY,
    endpoint     text NOT NULL CHECK (endpoint ~ '^https?://' AND char_length(endpoint) <= 2048),
    p256dh       text NOT NULL CHECK (char_length(p256dh) BETWEEN 80 AND 100),
    auth         text NOT NULL CHECK (char_length(auth) BETWEEN 16 AND 32),
    device       text NOT NULL DEFAULT '' CHECK (char_length(device) <= 120),
    created_at   timestamptz NOT NULL,
    last_sent_at timestamptz,
    PRIMARY KEY (user_id, id),
    UNIQUE (user_id, endpoint)
);
-- A browser that another user subscribes on moves to them.
CREATE INDEX push_subscriptions_endpoint ON push_subscriptions (endpoint);

-- One row per notification job (River's job id): inserted "queued" with the
-- job, in the move's transaction, and updated at every attempt.
CREATE TABLE notification_deliveries (
    user_id         bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    job_id          bigint NOT NULL,
    channel         text NOT NULL CHECK (channel IN ('email', 'push')),
    topic           text NOT NULL CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test')),
    room_id         bigint,
    confirmation_id text,
    subscription_id bigint,
    recipient       text NOT NULL DEFAULT '',   -- the address, or the push service's host
    status          text NOT NULL CHECK (status IN ('queued', 'sent', 'retrying', 'failed', 'skipped', 'gone')),
    attempts        integer NOT NULL DEFAULT 0,
    error           text,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (user_id, job_id)
);
CREATE INDEX notification_deliveries_user_created ON notification_deliveries (user_id, created_at DESC, job_id DESC);

-- Mail kept instead of sent (taasky dev without SMTP_URL), as it would have
-- been sent, byte for byte.
CREATE TABLE dev_outbox (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    to_addr    text NOT NULL,
    subject    text NOT NULL,
    raw        bytea NOT NULL,
    created_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE dev_outbox;
DROP TABLE notification_deliveries;
DROP TABLE push_subscriptions;
DROP TABLE notification_prefs;
