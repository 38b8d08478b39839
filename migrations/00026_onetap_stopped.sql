-- Why a one-tap link stopped working without anyone answering through it:
-- its human left the account (their confirmations pass to its owners) or
-- the account was deleted. The link's page says so, instead of "used".
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- The CHECK is added NOT VALID, then validated: in the ADD COLUMN it read
-- every link under the ALTER's exclusive lock.
ALTER TABLE onetap_tokens ADD COLUMN IF NOT EXISTS stopped text,
    DROP CONSTRAINT IF EXISTS onetap_tokens_stopped_check,
    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left', 'account_deleted')) NOT VALID;
ALTER TABLE onetap_tokens VALIDATE CONSTRAINT onetap_tokens_stopped_check;

-- +goose Down
ALTER TABLE onetap_tokens DROP COLUMN stopped;
