-- An account may have at most OPEN_ROOMS_PER_ACCOUNT_MAX open rooms (not
-- ended: draft or awaiting). rooms_account_open finds them without reading
-- the ended ones; state is in rooms_due's predicate already, so a move that
-- leaves the state as it is stays a HOT update.
--
-- room_slot(account, cap) is called in the open's own INSERT (insertRoom),
-- for its account_id: it locks the account's row (FOR NO KEY UPDATE, which
-- the rooms' foreign keys do not wait for) until the open commits, then
-- counts the open rooms with a snapshot taken after the lock (a volatile
-- function's statements each take one), so two opens at once cannot both
-- take the last place. Full, it raises check_violation on the constraint
-- name rooms_open_per_account, which the service turns into its refusal.
-- cap 0: no cap, no lock.
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- CONCURRENTLY: a plain CREATE INDEX held off every write to rooms for
-- the build (00029 says why the rest).
SET lock_timeout = 0;
DROP INDEX CONCURRENTLY IF EXISTS rooms_account_open;
CREATE INDEX CONCURRENTLY rooms_account_open ON rooms (account_id) WHERE state IN ('draft', 'awaiting');
RESET lock_timeout;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION room_slot(account bigint, cap integer) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF cap > 0 THEN
        PERFORM 1 FROM accounts WHERE id = account FOR NO KEY UPDATE;
        IF (SELECT count(*) FROM (SELECT 1 FROM rooms WHERE account_id = account AND state IN ('draft', 'awaiting') LIMIT cap) o) >= cap THEN
            RAISE EXCEPTION 'account % has % open rooms', account, cap
                USING ERRCODE = 'check_violation', CONSTRAINT = 'rooms_open_per_account';
        END IF;
    END IF;
    RETURN account;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION room_slot(bigint, integer);
DROP INDEX rooms_account_open;
