package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The rooms' SQL: rooms, parties, room_events, confirmations, seen_schemas.

type partyRow struct {
	Side        negotiation.Side
	AccountID   *int64
	AgentID     *int64
	OwnerUserID *int64
	TokenSalt   []byte
	LimitsEnc   []byte
	SchemaFP    string
}

type roomRow struct {
	ID          int64
	AccountID   int64
	Title       *string
	Seq         int
	Snapshot    string
	ExpiryJobID *int64
	LapseJobID  *int64
	Parties     [2]*partyRow
}

func (r *roomRow) party(s negotiation.Side) *partyRow {
	if s == negotiation.SideB {
		return r.Parties[1]
	}
	return r.Parties[0]
}

const roomColumns = `id, account_id, title, seq, snapshot, expiry_job_id, lapse_job_id`

// selectRoom reads a room and its parties; lock takes the room row FOR UPDATE.
func selectRoom(ctx context.Context, q querier, roomID int64, lock bool) (*roomRow, error) {
	sql := `SELECT ` + roomColumns + ` FROM rooms WHERE id = $1`
	if lock {
		sql += ` FOR UPDATE`
	}
	r := &roomRow{}
	err := q.QueryRow(ctx, sql, roomID).Scan(&r.ID, &r.AccountID, &r.Title, &r.Seq, &r.Snapshot, &r.ExpiryJobID, &r.LapseJobID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, Errorf(ErrNotFound, "room not found")
	}
	if err != nil {
		return nil, fmt.Errorf("select room: %w", err)
	}
	return r, selectParties(ctx, q, r)
}

// selectSeat finds the room a room token opens, within the caller's account
// only, with the caller's side, in one query; lock takes the room row FOR UPDATE.
func selectSeat(ctx context.Context, q querier, tokenHash []byte, accountID int64, lock bool) (*roomRow, negotiation.Side, error) {
	sql := `SELECT r.id, r.account_id, r.title, r.seq, r.snapshot, r.expiry_job_id, r.lapse_job_id, p.side
		FROM parties p JOIN rooms r ON r.id = p.room_id WHERE p.token_hash = $1 AND p.account_id = $2`
	if lock {
		sql += ` FOR UPDATE OF r`
	}
	r := &roomRow{}
	var side negotiation.Side
	err := q.QueryRow(ctx, sql, tokenHash, accountID).Scan(&r.ID, &r.AccountID, &r.Title, &r.Seq, &r.Snapshot, &r.ExpiryJobID, &r.LapseJobID, &side)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", Errorf(ErrNotFound, "room_token: no room of yours has this token")
	}
	if err != nil {
		return nil, "", fmt.Errorf("select seat: %w", err)
	}
	return r, side, selectParties(ctx, q, r)
}

func selectParties(ctx context.Context, q querier, r *roomRow) error {
	rows, err := q.Query(ctx, `SELECT side, account_id, agent_id, owner_user_id, token_salt, limits_enc, schema_fp
		FROM parties WHERE room_id = $1`, r.ID)
	if err != nil {
		return fmt.Errorf("select parties: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		p := &partyRow{}
		if err := rows.Scan(&p.Side, &p.AccountID, &p.AgentID, &p.OwnerUserID, &p.TokenSalt, &p.LimitsEnc, &p.SchemaFP); err != nil {
			return err
		}
		if p.Side == negotiation.SideA {
			r.Parties[0] = p
		} else {
			r.Parties[1] = p
		}
	}
	return rows.Err()
}

func insertRoom(ctx context.Context, q querier, accountID int64, inviteHash []byte, title *string, r *negotiation.Room, now time.Time) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `INSERT INTO rooms (account_id, invite_code_hash, title, state, round, turn, deadline, expires_at, seq, snapshot, opened_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, 0, '', $9, $9) RETURNING id`,
		accountID, inviteHash, title, r.State, r.Round, string(r.Turn), r.Deadline, r.ExpiresAt, now).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert room: %w", err)
	}
	return id, nil
}

func insertParty(ctx context.Context, q querier, roomID int64, p *partyRow, tokenHash []byte, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO parties (room_id, side, account_id, agent_id, owner_user_id, token_hash, token_salt, limits_enc, schema_fp, joined_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		roomID, p.Side, p.AccountID, p.AgentID, p.OwnerUserID, tokenHash, p.TokenSalt, p.LimitsEnc, p.SchemaFP, now)
	if err != nil {
		return fmt.Errorf("insert party: %w", err)
	}
	return nil
}

// updateRoom writes the room and, in the same statement, notifies the live
// pages (LISTEN taasky_room on any process; delivered at commit only).
func updateRoom(ctx context.Context, q querier, row *roomRow, r *negotiation.Room, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE rooms SET state = $2, closed_reason = NULLIF($3, ''), round = $4, turn = NULLIF($5, ''),
		deadline = $6, seq = $7, snapshot = $8, expiry_job_id = $9, lapse_job_id = $10, updated_at = $11 WHERE id = $1
		RETURNING pg_notify('taasky_room', id::text)`,
		row.ID, r.State, string(r.ClosedReason), r.Round, string(r.Turn), r.Deadline, row.Seq, row.Snapshot,
		row.ExpiryJobID, row.LapseJobID, now)
	if err != nil {
		return fmt.Errorf("update room: %w", err)
	}
	return nil
}

func insertEvent(ctx context.Context, q querier, roomID int64, seq int, ev *negotiation.Event, fingerprint []byte) error {
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO room_events (room_id, seq, kind, side, fingerprint, event, at)
		VALUES ($1, $2, $3, NULLIF($4, ''), $5, $6, $7)`, roomID, seq, ev.Kind, string(ev.Side), fingerprint, b, ev.At)
	if err != nil {
		return fmt.Errorf("insert event: %w", err)
	}
	return nil
}

// lastEvent returns the side and fingerprint of a room's latest event.
func lastEvent(ctx context.Context, q querier, roomID int64, seq int) (side string, fp []byte, err error) {
	var s *string
	err = q.QueryRow(ctx, `SELECT side, fingerprint FROM room_events WHERE room_id = $1 AND seq = $2`, roomID, seq).Scan(&s, &fp)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil, nil
	}
	if s != nil {
		side = *s
	}
	return side, fp, err
}

// lastTabledAt is when side last offered or countered in the room (zero:
// never), for the cool-down between counters.
func lastTabledAt(ctx context.Context, q querier, roomID int64, side negotiation.Side) (time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `SELECT at FROM room_events WHERE room_id = $1 AND side = $2 AND kind = 'propose'
		AND event::jsonb->>'verdict' IN ('offer', 'counter') ORDER BY seq DESC LIMIT 1`, roomID, string(side)).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("last tabled: %w", err)
	}
	return at, nil
}

func selectEvents(ctx context.Context, q querier, roomID int64) ([]negotiation.Event, error) {
	rows, err := q.Query(ctx, `SELECT event FROM room_events WHERE room_id = $1 ORDER BY seq`, roomID)
	if err != nil {
		return nil, fmt.Errorf("select events: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (negotiation.Event, error) {
		var ev negotiation.Event
		var b []byte
		if err := row.Scan(&b); err != nil {
			return ev, err
		}
		return ev, json.Unmarshal(b, &ev)
	})
}

func roomByInvite(ctx context.Context, q querier, codeHash []byte) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM rooms WHERE invite_code_hash = $1`, codeHash).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, Errorf(ErrNotFound, "invite_code: no invitation has this code")
	}
	return id, err
}

func insertConfirmation(ctx context.Context, q querier, roomID int64, c *negotiation.Confirmation) error {
	_, err := q.Exec(ctx, `INSERT INTO confirmations (room_id, id, side, verdict, subject_hash, status, requested_at)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), 'pending', $6)`, roomID, c.ID, c.Side, c.Verdict, string(c.SubjectHash), c.RequestedAt)
	if err != nil {
		return fmt.Errorf("insert confirmation: %w", err)
	}
	return nil
}

func settleConfirmation(ctx context.Context, q querier, roomID int64, id string, status negotiation.Result, why string, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE confirmations SET status = $3, why = NULLIF($4, ''), decided_at = $5
		WHERE room_id = $1 AND id = $2 AND status = 'pending'`, roomID, id, status, why, at)
	if err != nil {
		return fmt.Errorf("settle confirmation: %w", err)
	}
	return nil
}

func markSchemaSeen(ctx context.Context, q querier, accountID int64, fp string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO seen_schemas (account_id, fingerprint, seen_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, accountID, fp, at)
	return err
}

func schemaSeen(ctx context.Context, q querier, accountID int64, fp string) (bool, error) {
	var seen bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM seen_schemas WHERE account_id = $1 AND fingerprint = $2)`, accountID, fp).Scan(&seen)
	return seen, err
}

// summaryRow is a room's list entry as read, before the side is applied.
type summaryRow struct {
	Summary
	side      negotiation.Side
	salt      []byte
	tokenHash []byte
}

// selectSummaries reads list entries for the parties matching where (its
// arguments follow).
func selectSummaries(ctx context.Context, q querier, where string, args ...any) ([]summaryRow, error) {
	rows, err := q.Query(ctx, `SELECT r.id, p.side, p.token_salt, p.token_hash, r.state, coalesce(r.closed_reason, ''), r.round, r.turn,
		r.deadline, coalesce(r.title, ''),
		EXISTS (SELECT 1 FROM confirmations c WHERE c.room_id = r.id AND c.side = p.side AND c.status = 'pending')
		FROM parties p JOIN rooms r ON r.id = p.room_id WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list rooms: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (summaryRow, error) {
		var r summaryRow
		var deadline time.Time
		err := row.Scan(&r.RoomID, &r.side, &r.salt, &r.tokenHash, &r.State, &r.ClosedReason, &r.Round, &r.Turn,
			&deadline, &r.Title, &r.PendingConfirmation)
		r.Deadline = deadline.UTC().Format(timeLayout)
		return r, err
	})
}
