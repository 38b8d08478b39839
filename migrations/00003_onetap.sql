-- One-tap links (/c/{token}): each is bound to one confirmation (and so to
-- its hash), single-use, and useless once the confirmation is settled.

-- +goose Up
CREATE TABLE onetap_tokens (
    room_id         bigint NOT NULL,
    token_hash      bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    confirmation_id text NOT NULL,
    channel         text NOT NULL,          -- where it was sent: email, push, dashboard
    created_at      timestamptz NOT NULL,
    used_at         timestamptz,
    PRIMARY KEY (room_id, token_hash),
    FOREIGN KEY (room_id, confirmation_id) REFERENCES confirmations (room_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE onetap_tokens;
