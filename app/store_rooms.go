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
	ExpiryJobID *int64 // rooms opened before migration 00010 only: cancelled at the join
	CloseJobID  *int64 // closes the room when due; cancelled once it is final
	Parties     [2]*partyRow
	log         []string  // the events as logged, one per seq
	human       *humanRow // the human of the side the statement read it for (a seat, a one-tap link, a notice)
	// skipped: selectSeatUnless found the room at the seq it was given and
	// left out the snapshot and the log.
	skipped bool
}

func (r *roomRow) party(s negotiation.Side) *partyRow {
	if s == negotiation.SideB {
		return r.Parties[1]
	}
	return r.Parties[0]
}

// roomSelect reads a room, both its parties and its log in one statement.
// A caller that locks the room checks the log against the room's seq: a
// statement that waited for the lock read the parties and the log as they
// were before the move it waited for (roomRow.current re-reads them).
var roomSelect = roomColumns(`r.snapshot`, roomLog)

const roomLog = `ARRAY(SELECT e.event FROM room_events e WHERE e.room_id = r.id ORDER BY e.seq)`

// roomColumns is roomSelect with the given expressions for the snapshot
// and the log.
func roomColumns(snapshot, log string) string {
	return `SELECT r.id, r.account_id, r.title, r.seq, ` + snapshot + `, r.expiry_job_id, r.close_job_id,
	pa.side, pa.account_id, pa.agent_id, pa.owner_user_id, pa.token_salt, pa.limits_enc, pa.schema_fp,
	pb.side, pb.account_id, pb.agent_id, pb.owner_user_id, pb.token_salt, pb.limits_enc, pb.schema_fp,
	` + log
}

// roomSelectUnless is roomSelect that leaves out the snapshot and the log
// (an empty snapshot, a NULL log) when the room's seq is the parameter
// named by param: the caller holds that seq's view already.
func roomSelectUnless(param string) string {
	same := `r.seq = ` + param
	return roomColumns(`CASE WHEN `+same+` THEN '' ELSE r.snapshot END`, `CASE WHEN `+same+` THEN NULL ELSE `+roomLog+` END`)
}

const roomJoins = ` LEFT JOIN parties pa ON pa.room_id = r.id AND pa.side = 'a'
	LEFT JOIN parties pb ON pb.room_id = r.id AND pb.side = 'b'`

// scanRoom scans roomSelect's columns, then extra.
func scanRoom(row pgx.Row, extra ...any) (*roomRow, error) {
	r := &roomRow{}
	var ps [2]struct {
		side     *negotiation.Side
		schemaFP *string
		p        partyRow
	}
	dest := []any{&r.ID, &r.AccountID, &r.Title, &r.Seq, &r.Snapshot, &r.ExpiryJobID, &r.CloseJobID}
	for i := range ps {
		x := &ps[i]
		dest = append(dest, &x.side, &x.p.AccountID, &x.p.AgentID, &x.p.OwnerUserID, &x.p.TokenSalt, &x.p.LimitsEnc, &x.schemaFP)
	}
	dest = append(dest, &r.log)
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	for i, x := range ps {
		if x.side != nil {
			p := x.p
			p.Side, p.SchemaFP = *x.side, *x.schemaFP
			r.Parties[i] = &p
		}
	}
	return r, nil
}

// selectRoom reads a room, its parties and its log; lock takes the room
// row FOR UPDATE.
func selectRoom(ctx context.Context, q querier, roomID int64, lock bool) (*roomRow, error) {
	r, err := readRoom(ctx, q, roomID, lock)
	if err != nil {
		return nil, err
	}
	return r, r.current(ctx, q)
}

// readRoom is selectRoom's one statement, as it read (the consistency
// checker compares its log with its seq).
func readRoom(ctx context.Context, q querier, roomID int64, lock bool) (*roomRow, error) {
	sql := roomSelect + ` FROM rooms r` + roomJoins + ` WHERE r.id = $1`
	if lock {
		sql += ` FOR UPDATE OF r`
	}
	r, err := scanRoom(q.QueryRow(ctx, sql, roomID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, Errorf(ErrNotFound, "room not found")
	}
	if err != nil {
		return nil, fmt.Errorf("select room: %w", err)
	}
	return r, nil
}

// selectSeat finds the room a room token opens, within the caller's account
// only, with the caller's side and its human's context (the time zone, and
// whether the account has seen the other side's schema), in one statement;
// lock takes the room row FOR UPDATE.
func selectSeat(ctx context.Context, q querier, tokenHash []byte, accountID int64, lock bool) (*roomRow, negotiation.Side, error) {
	return querySeat(ctx, q, tokenHash, accountID, lock, -1)
}

// selectSeatUnless is selectSeat without a lock, leaving out the snapshot
// and the log when the room is still at seq known: the row then comes back
// with skipped set, and its parties and human context only.
func selectSeatUnless(ctx context.Context, q querier, tokenHash []byte, accountID int64, known int) (*roomRow, negotiation.Side, error) {
	return querySeat(ctx, q, tokenHash, accountID, false, known)
}

// humanCols is what a side's card needs of its human, for the side's
// party p and the other party o: whether p's account has seen o's schema,
// and the time zone of p's human.
const humanCols = `,
	EXISTS (SELECT 1 FROM seen_schemas s WHERE s.account_id = p.account_id AND s.fingerprint = o.schema_fp),
	(SELECT u.time_zone FROM users u WHERE u.id = p.owner_user_id)`

// namesCols names, for a message to p's human, p's agent and o's account.
const namesCols = `,
	(SELECT g.name FROM agents g WHERE g.account_id = p.account_id AND g.id = p.agent_id),
	(SELECT a.name FROM accounts a WHERE a.id = o.account_id)`

// otherParty joins o, the party across from p.
const otherParty = ` LEFT JOIN parties o ON o.room_id = r.id AND o.side <> p.side`

const seatFrom = `, p.side` + humanCols + `
	FROM parties p JOIN rooms r ON r.id = p.room_id` + roomJoins + otherParty + `
	WHERE p.token_hash = $1 AND p.account_id = $2`

var (
	seatSQL       = roomSelect + seatFrom
	seatSQLLocked = seatSQL + ` FOR UPDATE OF r`
	seatSQLUnless = roomSelectUnless(`$3`) + seatFrom
	// oneTapSQL is the room of a one-tap token ($1, hashed) with the context
	// of the human of the confirmation's side, and the token and the
	// confirmation as they stand.
	oneTapSQL = roomSelect + humanCols + `, t.confirmation_id, t.used_at, c.side, NULLIF(c.status, 'pending'), c.why
	FROM onetap_tokens t JOIN confirmations c ON c.room_id = t.room_id AND c.id = t.confirmation_id
	JOIN rooms r ON r.id = t.room_id` + roomJoins + `
	LEFT JOIN parties p ON p.room_id = r.id AND p.side = c.side` + otherParty + ` WHERE t.token_hash = $1`
)

func querySeat(ctx context.Context, q querier, tokenHash []byte, accountID int64, lock bool, known int) (*roomRow, negotiation.Side, error) {
	var side negotiation.Side
	h := &humanRow{}
	var row pgx.Row
	switch {
	case lock:
		row = q.QueryRow(ctx, seatSQLLocked, tokenHash, accountID)
	case known >= 0:
		row = q.QueryRow(ctx, seatSQLUnless, tokenHash, accountID, known)
	default:
		row = q.QueryRow(ctx, seatSQL, tokenHash, accountID)
	}
	r, err := scanRoom(row, &side, &h.seen, &h.zone)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", Errorf(ErrNotFound, "room_token: no room of yours has this token")
	}
	if err != nil {
		return nil, "", fmt.Errorf("select seat: %w", err)
	}
	r.skipped = known >= 0 && r.Seq == known
	if r.skipped || len(r.log) == r.Seq { // else read before the lock: current re-reads, and the context with it
		r.setHuman(side, h)
	}
	if r.skipped {
		return r, side, nil
	}
	return r, side, r.current(ctx, q)
}

// humanRow is what a statement read of a side's human with the room, for
// the side's card: valid while the other side's schema is theirFP.
type humanRow struct {
	side    negotiation.Side
	theirFP string
	seen    bool
	zone    *string
	// With namesCols: the side's agent and the other side's account.
	agent, them *string
}

// setHuman keeps h as side's human, as of the other side's schema now.
func (r *roomRow) setHuman(side negotiation.Side, h *humanRow) {
	h.side, h.theirFP = side, ""
	if p := r.party(side.Other()); p != nil {
		h.theirFP = p.SchemaFP
	}
	r.human = h
}

// current re-reads the parties and the log when the statement that read
// them ran before the room's latest move committed (it waited for the
// lock): the room row is then newer than its log.
func (r *roomRow) current(ctx context.Context, q querier) error {
	if len(r.log) == r.Seq {
		return nil
	}
	r.Parties = [2]*partyRow{}
	if err := selectParties(ctx, q, r); err != nil {
		return err
	}
	rows, err := q.Query(ctx, `SELECT event FROM room_events WHERE room_id = $1 ORDER BY seq`, r.ID)
	if err != nil {
		return fmt.Errorf("select events: %w", err)
	}
	if r.log, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return fmt.Errorf("select events: %w", err)
	}
	if len(r.log) != r.Seq {
		return fmt.Errorf("room %d: %d events logged, the room says %d", r.ID, len(r.log), r.Seq)
	}
	return nil
}

// events decodes the room's log.
func (r *roomRow) events() ([]negotiation.Event, error) {
	out := make([]negotiation.Event, len(r.log))
	for i, b := range r.log {
		if err := json.Unmarshal([]byte(b), &out[i]); err != nil {
			return nil, fmt.Errorf("room %d event %d: %w", r.ID, i+1, err)
		}
	}
	return out, nil
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

// updateRoom writes the room (inTx announces it once committed).
func updateRoom(b *pgx.Batch, row *roomRow, r *negotiation.Room, now time.Time) {
	b.Queue(`UPDATE rooms SET state = $2, closed_reason = NULLIF($3, ''), round = $4, turn = NULLIF($5, ''),
		deadline = $6, seq = $7, snapshot = $8, expiry_job_id = $9, close_job_id = $10, updated_at = $11 WHERE id = $1`,
		row.ID, r.State, string(r.ClosedReason), r.Round, string(r.Turn), r.Deadline, row.Seq, row.Snapshot,
		row.ExpiryJobID, row.CloseJobID, now)
}

// insertEvent logs ev as the room's event seq and returns it as logged.
func insertEvent(b *pgx.Batch, roomID int64, seq int, ev *negotiation.Event, fingerprint []byte) (string, error) {
	j, err := json.Marshal(ev)
	if err != nil {
		return "", err
	}
	b.Queue(`INSERT INTO room_events (room_id, seq, kind, side, fingerprint, event, at)
		VALUES ($1, $2, $3, NULLIF($4, ''), $5, $6, $7)`, roomID, seq, ev.Kind, string(ev.Side), fingerprint, string(j), ev.At)
	return string(j), nil
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

func roomByInvite(ctx context.Context, q querier, codeHash []byte) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT id FROM rooms WHERE invite_code_hash = $1`, codeHash).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, Errorf(ErrNotFound, "invite_code: no invitation has this code")
	}
	return id, err
}

func insertConfirmation(b *pgx.Batch, roomID int64, c *negotiation.Confirmation) {
	b.Queue(`INSERT INTO confirmations (room_id, id, side, verdict, subject_hash, status, requested_at)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), 'pending', $6)`, roomID, c.ID, c.Side, c.Verdict, string(c.SubjectHash), c.RequestedAt)
}

func settleConfirmation(b *pgx.Batch, roomID int64, id string, status negotiation.Result, why string, at time.Time) {
	b.Queue(`UPDATE confirmations SET status = $3, why = NULLIF($4, ''), decided_at = $5
		WHERE room_id = $1 AND id = $2 AND status = 'pending'`, roomID, id, status, why, at)
}

func markSchemaSeen(ctx context.Context, q querier, accountID int64, fp string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO seen_schemas (account_id, fingerprint, seen_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, accountID, fp, at)
	return err
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
