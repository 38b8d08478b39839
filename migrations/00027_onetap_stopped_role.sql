-- A one-tap link an owner was sent to answer for a seat whose human left
-- the account (its owners answer it) stops when that owner no longer may:
-- removed (stopped 'left', as their own links), or given a role that does
-- not answer for such seats (stopped 'role'). The link's page says so.

-- +goose Up
ALTER TABLE onetap_tokens DROP CONSTRAINT onetap_tokens_stopped_check,
    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left', 'account_deleted', 'role'));

-- +goose Down
UPDATE onetap_tokens SET stopped = 'left' WHERE stopped = 'role';
ALTER TABLE onetap_tokens DROP CONSTRAINT onetap_tokens_stopped_check,
    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left', 'account_deleted'));
