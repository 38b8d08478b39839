-- A database restored from a backup must not hand out again the ids the
-- lost time after the backup handed out: a room's id is its receipt's, and
-- a new room with the id of a room agreed after the backup would be signed
-- for other terms under the same number (docs/operations.md, "Restoring
-- from a backup").
--
-- installation.database_identity is the PostgreSQL database this
-- installation's processes ran on (its cluster's system identifier and the
-- database's oid), recorded by the first serve or dev to start: a process
-- that finds another one is on a copy (pg_restore into a new database, a
-- snapshot restored as a new server) and moves past the backup point
-- before it serves (app.MovePastBackup): every id sequence skips ahead and
-- every session ends. backup_point is the newest moment the copy held,
-- restored_at when it was moved past; both NULL until then.

-- +goose Up
ALTER TABLE installation ADD COLUMN database_identity text,
    ADD COLUMN backup_point timestamptz,
    ADD COLUMN restored_at timestamptz;

-- +goose Down
ALTER TABLE installation DROP COLUMN restored_at,
    DROP COLUMN backup_point,
    DROP COLUMN database_identity;
