-- An account being deleted: its owner's request marks it (and revokes its
-- keys, sessions and links) and returns; a River job (account_delete)
-- closes its open rooms in batches, then erases it (app/account_delete.go).
-- Its memberships give nothing of it from the mark on.

-- +goose Up
ALTER TABLE accounts ADD COLUMN deleting_at timestamptz;

-- +goose Down
ALTER TABLE accounts DROP COLUMN deleting_at;
