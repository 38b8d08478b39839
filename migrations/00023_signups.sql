-- The sign-ups of the last 24 hours, for SIGNUP_DAILY_CAP: a hash of the
-- lowercased address of the person who created an account, and when.
-- Account deletion erases the audit log and may erase the person; this
-- stays, so that deleting accounts does not reset the cap. Rows older than
-- a day are deleted at the next sign-up.

-- +goose Up
CREATE TABLE signups (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email_hash bytea NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX signups_email_hash_at ON signups (email_hash, at);

-- +goose Down
DROP TABLE signups;
