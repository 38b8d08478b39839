-- Why a one-tap link stopped working without anyone answering through it:
-- its human left the account (their confirmations pass to its owners) or
-- the account was deleted. The link's page says so, instead of "used".

-- +goose Up
ALTER TABLE onetap_tokens ADD COLUMN stopped text CHECK (stopped IN ('left', 'account_deleted'));

-- +goose Down
ALTER TABLE onetap_tokens DROP COLUMN stopped;
