-- Who was shown an agent's key when it was issued: the member who issued it
-- (an owner or admin may issue one for a colleague's agent). When that
-- member leaves the account, or is given a role that no longer manages a
-- colleague's agent, the keys they were shown for others' agents are
-- revoked with their own: they may still hold them. NULL: issued by an
-- operator's command, or before this column.

-- +goose Up
ALTER TABLE agent_keys ADD COLUMN issued_by bigint;

-- +goose Down
ALTER TABLE agent_keys DROP COLUMN issued_by;
