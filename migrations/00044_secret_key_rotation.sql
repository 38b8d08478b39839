-- Rotating SECRET_KEY (taasky secret-key rotate, docs/operations.md) keeps
-- what cannot be made again under the new key:
-- retired_keys: the keys of the addresses' hashes (invite_refusals,
-- signups) under SECRET_KEYs rotated before, sealed under the current
-- limits key: a keyed hash cannot be keyed again without its address,
-- which is not kept. fingerprint (an HMAC under the key of a fixed label)
-- keeps one row per key.
-- receipt_keys: the public receipt keys the installation's processes have
-- published (public keys, no secret): a receipt signed before a rotation
-- still verifies at /.well-known/jwks.json and /verify once the key it was
-- derived from is gone. mac is an HMAC of the kid and the key under a key
-- derived from SECRET_KEY (app.receiptKeyMAC): a key written into the
-- table by whoever holds only the database is not published.
-- party_tokens_before: an agent's seat whose room token the rotation
-- derived again under the new key keeps its old token, keyed with the
-- previous key (an HMAC, app.prevTokenHash), so that the old token still
-- finds the seat while SECRET_KEY_PREVIOUS is set, and no longer once it
-- is removed (nor at the next rotation, whose previous key is another). A
-- table apart: parties, which every read and move probes, keeps its shape.

-- +goose Up
CREATE TABLE retired_keys (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    purpose     text NOT NULL CHECK (purpose = 'email-hash'),
    fingerprint bytea NOT NULL UNIQUE CHECK (octet_length(fingerprint) = 32),
    sealed      bytea NOT NULL,
    retired_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE receipt_keys (
    kid          text PRIMARY KEY CHECK (char_length(kid) BETWEEN 1 AND 100),
    jwk          jsonb NOT NULL,
    mac          bytea NOT NULL CHECK (octet_length(mac) = 32),
    published_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE party_tokens_before (
    token_hmac bytea PRIMARY KEY CHECK (octet_length(token_hmac) = 32),
    room_id    bigint NOT NULL,
    side       text NOT NULL,
    FOREIGN KEY (room_id, side) REFERENCES parties (room_id, side) ON DELETE CASCADE
);
CREATE INDEX party_tokens_before_party ON party_tokens_before (room_id, side);

-- +goose Down
DROP TABLE party_tokens_before;
DROP TABLE receipt_keys;
DROP TABLE retired_keys;
