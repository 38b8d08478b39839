-- Between the same two accounts, a field's no-deal verdict is withheld
-- when one side keeps its limit and the other moves its own
-- (negotiation.WithheldNoDeal): else one account could bisect the other's
-- private limits room by room. To compare limits across rooms without
-- opening them, each join keeps a mark of each side's limit on each field
-- both schemas share: an HMAC under a key derived from SECRET_KEY
-- (app/limit_marks.go), never the limit. account_lo/account_hi are the
-- pair's two account ids, the smaller first (either may have opened);
-- mark_lo/mark_hi are their limits' marks. Kept 30 days
-- (negotiation.NoDealMarksKept): the purge deletes older ones, and an
-- account's deletion deletes its rows.

-- +goose Up
CREATE TABLE limit_marks (
    account_lo bigint NOT NULL,
    account_hi bigint NOT NULL,
    room_id bigint NOT NULL,
    field text NOT NULL,
    mark_lo bytea NOT NULL CHECK (octet_length(mark_lo) = 32),
    mark_hi bytea NOT NULL CHECK (octet_length(mark_hi) = 32),
    told boolean NOT NULL,
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (account_lo, account_hi, room_id, field),
    CHECK (account_lo <= account_hi)
);
CREATE INDEX limit_marks_hi ON limit_marks (account_hi);
CREATE INDEX limit_marks_joined ON limit_marks (joined_at);

-- +goose Down
DROP TABLE limit_marks;
