-- A one-tap link an owner was sent to answer for a seat whose human left
-- the account (its owners answer it) stops when that owner no longer may:
-- removed (stopped 'left', as their own links), or given a role that does
-- not answer for such seats (stopped 'role'). The link's page says so.
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- NOT VALID, then validated (00026 says why).
ALTER TABLE onetap_tokens DROP CONSTRAINT IF EXISTS onetap_tokens_stopped_check,
    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left', 'account_deleted', 'role')) NOT VALID;
ALTER TABLE onetap_tokens VALIDATE CONSTRAINT onetap_tokens_stopped_check;

-- +goose Down
UPDATE onetap_tokens SET stopped = 'left' WHERE stopped = 'role';
ALTER TABLE onetap_tokens DROP CONSTRAINT onetap_tokens_stopped_check,
    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left', 'account_deleted'));
