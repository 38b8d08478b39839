package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// keepKeyCheck records check as the installation's key fingerprint unless
// one is recorded already (the first process to start wins; a concurrent
// one waits for its row lock and then finds it set), and returns the one
// recorded, with the new key's of a rotation under way (next, nil: none).
func keepKeyCheck(ctx context.Context, q querier, check []byte) (kept, next []byte, err error) {
	if _, err := q.Exec(ctx, `UPDATE installation SET key_check = $1 WHERE key_check IS NULL`, check); err != nil {
		return nil, nil, fmt.Errorf("keepKeyCheck: %w", err)
	}
	if err := q.QueryRow(ctx, `SELECT key_check, key_check_next FROM installation`).Scan(&kept, &next); err != nil {
		return nil, nil, fmt.Errorf("keepKeyCheck: %w", err)
	}
	return kept, next, nil
}

// keepKeyCheckNext records check as the fingerprint of the new key of
// the rotation under way unless one is recorded already (the first
// process wins, as in keepKeyCheck), and returns the one recorded.
func keepKeyCheckNext(ctx context.Context, q querier, check []byte) ([]byte, error) {
	var next []byte
	err := q.QueryRow(ctx, `WITH set AS (UPDATE installation SET key_check_next = $1 WHERE key_check_next IS NULL RETURNING key_check_next)
		SELECT key_check_next FROM set UNION ALL SELECT key_check_next FROM installation WHERE NOT EXISTS (SELECT FROM set)`, check).Scan(&next)
	if err != nil {
		return nil, fmt.Errorf("keepKeyCheckNext: %w", err)
	}
	return next, nil
}

// raiseReceiptKeyVersion records version as the installation's receipt key
// version unless a higher one is recorded (concurrent processes take turns
// on the row), and returns the one recorded, with the database's clock
// when the statement began (statement_timestamp()).
func raiseReceiptKeyVersion(ctx context.Context, q querier, version int) (int, time.Time, error) {
	var kept int
	var at time.Time
	if err := q.QueryRow(ctx, `UPDATE installation SET receipt_key_version = greatest(receipt_key_version, $1)
		RETURNING receipt_key_version, statement_timestamp()`, version).Scan(&kept, &at); err != nil {
		return 0, at, fmt.Errorf("raiseReceiptKeyVersion: %w", err)
	}
	return kept, at, nil
}

// databaseIdentity is the database this connection is on: its cluster's
// system identifier ("-" where the role may not call pg_control_system,
// as some hosted services allow) and the database's oid. A pg_restore
// into a new database changes the oid, a snapshot restored as a new
// server the system identifier; a standby promoted (failover) keeps both.
func databaseIdentity(ctx context.Context, q querier) (string, error) {
	var may bool
	var system, oid string
	if err := q.QueryRow(ctx, `SELECT has_function_privilege('pg_control_system()', 'execute'),
		(SELECT d.oid::text FROM pg_database d WHERE d.datname = current_database())`).Scan(&may, &oid); err != nil {
		return "", fmt.Errorf("databaseIdentity: %w", err)
	}
	system = "-"
	if may {
		if err := q.QueryRow(ctx, `SELECT system_identifier::text FROM pg_control_system()`).Scan(&system); err != nil {
			return "", fmt.Errorf("databaseIdentity: %w", err)
		}
	}
	return system + "/" + oid, nil
}

// lockDatabaseIdentity reads, and locks for the caller's transaction, the
// database identity recorded ("" when none is).
func lockDatabaseIdentity(ctx context.Context, q querier) (string, error) {
	var id *string
	if err := q.QueryRow(ctx, `SELECT database_identity FROM installation FOR UPDATE`).Scan(&id); err != nil {
		return "", fmt.Errorf("lockDatabaseIdentity: %w", err)
	}
	if id == nil {
		return "", nil
	}
	return *id, nil
}

// recordDatabaseIdentity records the database identity, and the backup
// point and moment of a restore when restoredAt is set.
func recordDatabaseIdentity(ctx context.Context, q querier, id string, backupPoint, restoredAt *time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE installation SET database_identity = $1,
		backup_point = coalesce($2, backup_point), restored_at = coalesce($3, restored_at)`, id, backupPoint, restoredAt); err != nil {
		return fmt.Errorf("recordDatabaseIdentity: %w", err)
	}
	return nil
}

// selectBackupPoint is the newest moment the data holds, as far as the
// newest row of each table written through the day tells (each through
// its primary key): the newest room's last change, the newest job queued
// (the sweep queues one a second while a worker runs) and the newest
// session. It is at or before the moment the backup
// was taken (no later: a lower bound makes the skip longer, never shorter);
// the zero time for a database that holds none.
func selectBackupPoint(ctx context.Context, q querier) (time.Time, error) {
	var at *time.Time
	if err := q.QueryRow(ctx, `SELECT greatest(
			(SELECT updated_at FROM rooms ORDER BY id DESC LIMIT 1),
			(SELECT created_at FROM river_job ORDER BY id DESC LIMIT 1),
			(SELECT created_at FROM user_sessions ORDER BY id DESC LIMIT 1))`).Scan(&at); err != nil {
		return time.Time{}, fmt.Errorf("selectBackupPoint: %w", err)
	}
	if at == nil {
		return time.Time{}, nil
	}
	return *at, nil
}

// skipSequences moves every bigint sequence of the schema (the tables'
// identity columns, River's job ids) gap values ahead of the last one it
// gave, and returns how many it moved. setval is not undone by a rollback:
// a skip whose transaction fails stays skipped, which is harmless.
func skipSequences(ctx context.Context, q querier, gap int64) (int, error) {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(setval(format('%I.%I', schemaname, sequencename)::regclass,
			least(coalesce(last_value, 0) + $1, max_value)))
		FROM pg_sequences WHERE schemaname = current_schema() AND data_type = 'bigint'::regtype`, gap).Scan(&n); err != nil {
		return 0, fmt.Errorf("skipSequences: %w", err)
	}
	return n, nil
}

// deleteEverySession ends every person's session, and returns how many.
func deleteEverySession(ctx context.Context, q querier) (int64, error) {
	tag, err := q.Exec(ctx, `DELETE FROM user_sessions`)
	if err != nil {
		return 0, fmt.Errorf("deleteEverySession: %w", err)
	}
	return tag.RowsAffected(), nil
}

// selectRestore reads the backup point and moment of the latest restore
// (MovePastBackup); nil when the database was never restored.
func selectRestore(ctx context.Context, q querier) (backupPoint, restoredAt *time.Time, err error) {
	if err := q.QueryRow(ctx, `SELECT backup_point, restored_at FROM installation`).Scan(&backupPoint, &restoredAt); err != nil {
		return nil, nil, fmt.Errorf("selectRestore: %w", err)
	}
	return backupPoint, restoredAt, nil
}

// pendingRequest is a pending confirmation and who answers it (its seat's
// human, or the account's owners when the seat is nobody's), as the sweep
// reminds them.
type pendingRequest struct {
	roomID int64
	id     string
	side   string
	users  []int64
}

// selectPendingRequests reads every pending confirmation of an account's
// seat with who answers it (a restore asks them again; once), but those
// whose request's email is still queued or being retried (it goes anyway).
func selectPendingRequests(ctx context.Context, q querier) ([]pendingRequest, error) {
	rows, err := q.Query(ctx, `SELECT c.room_id, c.id, c.side,
			CASE WHEN p.owner_user_id IS NOT NULL THEN ARRAY[p.owner_user_id]
				ELSE ARRAY(SELECT m.user_id FROM memberships m
					WHERE m.account_id = p.account_id AND m.role = 'owner' ORDER BY m.user_id) END
		FROM confirmations c JOIN parties p ON p.room_id = c.room_id AND p.side = c.side
		WHERE c.status = 'pending' AND p.account_id IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM river_job j WHERE j.kind = 'notify_email'
				AND j.state IN ('available', 'pending', 'retryable', 'running', 'scheduled')
				AND j.args->>'topic' = 'request' AND j.args->>'confirmation_id' = c.id)
		ORDER BY c.room_id, c.id`)
	if err != nil {
		return nil, fmt.Errorf("selectPendingRequests: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (pendingRequest, error) {
		var r pendingRequest
		err := row.Scan(&r.roomID, &r.id, &r.side, &r.users)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectPendingRequests: %w", err)
	}
	return out, nil
}
