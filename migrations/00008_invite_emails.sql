-- The invitations an account had Taasky email (negotiation_open's
-- invite_email), for the daily cap (INVITE_EMAIL_DAILY_CAP): an open that
-- asks for one locks the account's row, counts the account's rows of the
-- last 24 hours, and adds its own in the same transaction, so concurrent
-- opens cannot pass the cap together. Rows older than a day count for
-- nothing and are deleted as the account opens more. Kept apart from the
-- delivery log, which belongs to a user (and goes with them) and says how
-- a mail went, not that it was asked for.

-- +goose Up
CREATE TABLE invite_emails (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    room_id    bigint NOT NULL,
    PRIMARY KEY (account_id, created_at, room_id)
);

-- +goose Down
DROP TABLE invite_emails;
