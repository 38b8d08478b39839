package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The rooms' SQL: rooms, parties, room_events. The seats and what a
// side's human needs with the room are in store_rooms_seat.go, the lists
// in store_rooms_list.go, confirmations and one-tap tokens in
// store_confirmations.go.

type partyRow struct {
	Side        negotiation.Side
	AccountID   *int64
	AgentID     *int64
	OwnerUserID *int64
	TokenSalt   []byte
	LimitsEnc   []byte
	SchemaFP    string
	// PersonEmail is where the news of a person answering in the browser
	// (side b, no account) goes; nil: nowhere (none given, or they
	// unsubscribed).
	PersonEmail *string
	// person is what a person's new seat stores besides (AnswerInvitation);
	// nil for an agent's.
	person *personSeatRow
}

// personSeatRow is what a person's party keeps for their mails: the
// language and time zone of the page they answered on, and their personal
// link's token, sealed (Rooms.sealPersonLink).
type personSeatRow struct {
	lang string
	zone *string
	link []byte
}

// roomRow is a room as stored. rooms.expiry_job_id and rooms.close_job_id,
// the River jobs of the rooms opened before the sweep (migration 00013),
// are neither read nor written: those jobs finish as no-ops, and the sweep
// closes every room (jobs.SweepArgs).
type roomRow struct {
	// At is the database's clock when the statement that read the room
	// began (statement_timestamp()): the "now" a decision about the
	// room's stored moments takes (Rooms.clock), so that processes whose
	// clocks disagree decide alike, with no statement of its own.
	At        time.Time
	ID        int64
	AccountID int64
	Title     *string
	Seq       int
	Head      negotiation.SubjectHash // the log's head hash (negotiation.ChainLink)
	// Undelivered is what Taasky emailed for the seats and the mail
	// server refused for good (rooms.undelivered, markUndelivered), as
	// stored: nil for nothing. Read with the room, so a view says it with
	// no statement of its own (undeliveredOf).
	Undelivered []byte
	// InviteEmail is the address the opener had the invitation emailed to,
	// read only when Undelivered is not nil (the opener's view names it);
	// nil otherwise, and once erased.
	InviteEmail *string
	Snapshot    string
	Parties     [2]*partyRow
	log         []string  // the events as logged, one per seq
	human       *humanRow // the human of the side the statement read it for (a seat, a one-tap link, a notice)
	// skipped: selectSeatUnless found the room at the seq it was given and
	// left out the snapshot and the log.
	skipped bool
	// light: log is roomLogLight's, the terms of earlier offers and
	// counters left out (current re-reads it so).
	light bool
	// hooks are the enabled webhook endpoints of the accounts in hooksOf,
	// read with a locked room (hookTargetsCol); hooksOf is nil when they
	// were not read.
	hooks   []hookTarget
	hooksOf []int64
	// recips are the addresses of the parties' humans (and of a joiner's),
	// read with a locked room (recipientsCol); nil when not read.
	recips map[int64]*recipient
}

// erased reports whether the party's account was deleted: its sealed
// limits are gone with it (eraseAccount).
func (p *partyRow) erased() bool { return len(p.LimitsEnc) == 0 }

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
var roomSelect = roomColumns(`r.snapshot`, roomLog, "pa", "pb")

// roomLog is a room's log, whole, as a column of the room's statement.
var roomLog = `ARRAY(` + logSQL(`r.id`, false) + `)`

// roomLogLight is roomLog with the terms of every offer and counter but
// the room's latest move left out: such an event comes as a stub of its
// kind, side, moment and verdict (room_events.verdict), which is all a
// move and a read without history use of it (the rounds' count, a side's
// latest offer or counter), so that neither reads nor decodes the
// megabytes a long log of terms of the largest size holds. An event
// logged without its verdict column (before migration 00047) comes whole.
// A stub decodes to an offer or counter without terms (loggedEvent.elided),
// which the protocol never logs.
var roomLogLight = `ARRAY(` + logSQL(`r.id`, true) + `)`

// logSQL is the query of the log of the room whose id is the SQL
// expression id (r.id in a room's statement, $1 alone), one event per seq,
// whole or light (roomLogLight).
func logSQL(id string, light bool) string {
	if !light {
		return `SELECT e.event FROM room_events e WHERE e.room_id = ` + id + ` ORDER BY e.seq`
	}
	return `SELECT ` + lightEvent + ` FROM (SELECT max(l.seq) AS seq FROM room_events l
	WHERE l.room_id = ` + id + ` AND l.kind = 'propose') latest, room_events e WHERE e.room_id = ` + id + ` ORDER BY e.seq`
}

// lightEvent is an event of roomLogLight, of e, the room's latest propose
// event being latest.seq. The stub's moment is written in UTC, to the
// microsecond, whatever the session's TimeZone: json_build_object wrote a
// timestamptz in that zone, whose offset has seconds for some zones' past
// moments, which Go's time does not read.
const lightEvent = `CASE WHEN e.kind = 'propose' AND e.verdict IN ('offer', 'counter') AND e.seq < latest.seq
	THEN json_build_object('kind', e.kind, 'side', e.side,
		'at', to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'verdict', e.verdict)::text ELSE e.event END`

// roomColumns is roomSelect with the given expressions for the snapshot
// and the log, and the parties joined as p1 and p2 (either order: scanRoom
// seats each by its side).
func roomColumns(snapshot, log, p1, p2 string) string {
	party := func(p string) string {
		return p + `.side, ` + p + `.account_id, ` + p + `.agent_id, ` + p + `.owner_user_id, ` + p + `.token_salt, ` + p + `.limits_enc, ` + p + `.schema_fp, ` + p + `.person_email`
	}
	return `SELECT statement_timestamp(), r.id, r.account_id, r.title, r.seq, coalesce(r.head_hash, ''), r.undelivered, CASE WHEN r.undelivered IS NOT NULL THEN r.invite_email END, ` + snapshot + `,
	` + party(p1) + `,
	` + party(p2) + `,
	` + log
}

// roomSelectUnless is roomSelect of the parties joined as p1 and p2 that
// leaves out the snapshot and the log (an empty snapshot, a NULL log) when
// the room's seq is the parameter named by param: the caller holds that
// seq's view already.
func roomSelectUnless(param, p1, p2 string) string {
	same := `r.seq = ` + param
	return roomColumns(`CASE WHEN `+same+` THEN '' ELSE r.snapshot END`, `CASE WHEN `+same+` THEN NULL ELSE `+roomLogLight+` END`, p1, p2)
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
	dest := []any{&r.At, &r.ID, &r.AccountID, &r.Title, &r.Seq, &r.Head, &r.Undelivered, &r.InviteEmail, &r.Snapshot}
	for i := range ps {
		x := &ps[i]
		dest = append(dest, &x.side, &x.p.AccountID, &x.p.AgentID, &x.p.OwnerUserID, &x.p.TokenSalt, &x.p.LimitsEnc, &x.schemaFP, &x.p.PersonEmail)
	}
	dest = append(dest, &r.log)
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	for _, x := range ps {
		if x.side != nil {
			p := x.p
			p.Side, p.SchemaFP = *x.side, *x.schemaFP
			i := 0
			if p.Side == negotiation.SideB {
				i = 1
			}
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
	sql, dest := roomSQL, []any(nil)
	var hooks, recips []byte
	if lock {
		sql, dest = roomSQLLocked, []any{&hooks, &recips}
	}
	r, err := scanRoom(q.QueryRow(ctx, sql, roomID), dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, refuse(ErrNotFound, "error.no_room", "room not found")
	}
	if err != nil {
		return nil, fmt.Errorf("readRoom %d: %w", roomID, err)
	}
	if lock {
		return r, r.setMoveCols(hooks, recips)
	}
	return r, nil
}

var (
	roomSQL = roomSelect + ` FROM rooms r` + roomJoins + ` WHERE r.id = $1`
	// A locked room also comes with what the change made under the lock
	// may need to notify its parties (moveCols).
	roomSQLLocked = roomSelect + moveCols + ` FROM rooms r` + roomJoins + ` WHERE r.id = $1 FOR UPDATE OF r`
)

// current re-reads the parties and the log when the statement that read
// them ran before the room's latest move committed (it waited for the
// lock): the room row is then newer than its log.
func (r *roomRow) current(ctx context.Context, q querier) error {
	if len(r.log) == r.Seq {
		return nil
	}
	r.Parties, r.hooks, r.hooksOf, r.recips = [2]*partyRow{}, nil, nil, nil
	if err := selectParties(ctx, q, r); err != nil {
		return err
	}
	var err error
	if r.log, err = selectEvents(ctx, q, r.ID, r.light); err != nil {
		return err
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

// selectEvents reads a room's log, one event per seq; light as
// roomLogLight.
func selectEvents(ctx context.Context, q querier, roomID int64, light bool) ([]string, error) {
	rows, err := q.Query(ctx, logSQL(`$1`, light), roomID)
	if err != nil {
		return nil, fmt.Errorf("selectEvents %d: %w", roomID, err)
	}
	log, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("selectEvents %d: %w", roomID, err)
	}
	return log, nil
}

// selectParties reads the room's parties into r.
func selectParties(ctx context.Context, q querier, r *roomRow) error {
	rows, err := q.Query(ctx, `SELECT side, account_id, agent_id, owner_user_id, token_salt, limits_enc, schema_fp, person_email
		FROM parties WHERE room_id = $1`, r.ID)
	if err != nil {
		return fmt.Errorf("selectParties %d: %w", r.ID, err)
	}
	defer rows.Close()
	for rows.Next() {
		p := &partyRow{}
		if err := rows.Scan(&p.Side, &p.AccountID, &p.AgentID, &p.OwnerUserID, &p.TokenSalt, &p.LimitsEnc, &p.SchemaFP, &p.PersonEmail); err != nil {
			return fmt.Errorf("selectParties %d: %w", r.ID, err)
		}
		if p.Side == negotiation.SideA {
			r.Parties[0] = p
		} else {
			r.Parties[1] = p
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("selectParties %d: %w", r.ID, err)
	}
	return nil
}

// insertRoom stores a new room of the account, and returns its id with
// what the opener's change and view need besides: the time zone and
// language of its human (ownerUserID) and the account's webhook endpoints
// (hookTargetsCol's JSON), read by the same statement. With openCap > 0
// the same statement takes the account's place for it (room_slot,
// migration 00030: the account's row locked until the open commits, its
// open rooms counted after the lock); an account with openCap open rooms
// already is errOpenRoomsFull, and nothing is stored. With dbClock, the
// room opens at the database's clock (the statement's, returned besides):
// opened_at is it and the invitation's end is as far from it as r's is
// from now (the caller decides again at that moment, Rooms.Open).
func insertRoom(ctx context.Context, q querier, accountID, ownerUserID int64, inviteHash []byte, title, inviteEmail *string, r *negotiation.Room, now time.Time, openCap int, dbClock bool) (int64, *humanRow, []byte, time.Time, error) {
	var id int64
	var at time.Time
	h := &humanRow{}
	var hooks []byte
	err := q.QueryRow(ctx, `INSERT INTO rooms (account_id, invite_code_hash, title, state, round, turn, deadline, expires_at, seq, snapshot, opened_at, updated_at, head_hash, invite_email)
		VALUES (room_slot($1, $13), $2, $3, $4, $5, NULLIF($6, ''), $7,
			CASE WHEN $14::boolean THEN $8::timestamptz + (statement_timestamp() - $9::timestamptz) ELSE $8::timestamptz END, 0, '',
			CASE WHEN $14 THEN statement_timestamp() ELSE $9 END, CASE WHEN $14 THEN statement_timestamp() ELSE $9 END, $10, $12)
		RETURNING id, statement_timestamp(), (SELECT u.time_zone FROM users u WHERE u.id = $11),
			coalesce((SELECT coalesce(u.language, u.page_language, u.oidc_locale) FROM users u WHERE u.id = $11), '')`+hookTargetsCol(`$1`),
		accountID, inviteHash, title, r.State, r.Round, string(r.Turn), r.Deadline, r.ExpiresAt, now, string(negotiation.ChainGenesis),
		ownerUserID, inviteEmail, openCap, dbClock).Scan(&id, &at, &h.zone, &h.lang, &hooks)
	if isCheckViolation(err, "rooms_open_per_account") {
		return 0, nil, nil, at, errOpenRoomsFull
	}
	if err != nil {
		return 0, nil, nil, at, fmt.Errorf("insertRoom: %w", err)
	}
	return id, h, hooks, at, nil
}

const partyInsertSQL = `INSERT INTO parties (room_id, side, account_id, agent_id, owner_user_id, token_hash, token_salt, limits_enc, schema_fp, joined_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`

// personSeatSQL keeps what a person's mails need (personSeatRow), beside
// their party's row, which holds their address (person_email).
const personSeatSQL = `WITH s AS (INSERT INTO person_seats (room_id, lang, zone, link) VALUES ($1, $3, $4, $5))
	UPDATE parties SET person_email = $2 WHERE room_id = $1 AND side = 'b'`

func insertParty(ctx context.Context, q querier, roomID int64, p *partyRow, tokenHash []byte, now time.Time) error {
	_, err := q.Exec(ctx, partyInsertSQL, roomID, p.Side, p.AccountID, p.AgentID, p.OwnerUserID, tokenHash, p.TokenSalt, p.LimitsEnc, p.SchemaFP, now)
	if ps := p.person; err == nil && ps != nil {
		_, err = q.Exec(ctx, personSeatSQL, roomID, p.PersonEmail, ps.lang, ps.zone, ps.link)
	}
	if err != nil {
		return fmt.Errorf("insertParty %d %s: %w", roomID, p.Side, err)
	}
	return nil
}

// queueParty is insertParty queued into a change's batch.
func queueParty(b *pgx.Batch, roomID int64, p *partyRow, tokenHash []byte, now time.Time) {
	b.Queue(partyInsertSQL, roomID, p.Side, p.AccountID, p.AgentID, p.OwnerUserID, tokenHash, p.TokenSalt, p.LimitsEnc, p.SchemaFP, now)
}

// selectRoomInviteEmail is the address the room's invitation was emailed
// to ("": none), whether or not it refused invitations since.
func selectRoomInviteEmail(ctx context.Context, q querier, roomID int64) (string, error) {
	var email string
	err := q.QueryRow(ctx, `SELECT coalesce(invite_email, '') FROM rooms WHERE id = $1`, roomID).Scan(&email)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("selectRoomInviteEmail %d: %w", roomID, err)
	}
	return email, nil
}

// selectInviteEmail is the address the room's invitation was emailed to
// (negotiation_open's invite_email), unless that address refused
// invitations (its hashes, emailHashes of key): "" for none. A room
// whose invitation was emailed costs a second statement: the refusals
// keep keyed hashes, which SQL cannot compute.
func selectInviteEmail(ctx context.Context, q querier, key emailKeys, roomID int64) (string, error) {
	email, err := selectRoomInviteEmail(ctx, q, roomID)
	if err != nil || email == "" {
		return "", err
	}
	if refused, err := selectInviteRefused(ctx, q, emailHashes(key, email)); err != nil || refused {
		return "", err
	}
	return email, nil
}

// updatePersonContext keeps the language and the time zone a seated
// person's latest answer came with, for their mails: a zone once their
// browser told it (zone nil leaves it as it is).
func updatePersonContext(ctx context.Context, q querier, roomID int64, lang string, zone *string) error {
	_, err := q.Exec(ctx, `UPDATE person_seats SET lang = coalesce(NULLIF($2, ''), lang), zone = coalesce($3, zone)
		WHERE room_id = $1 AND (lang <> coalesce(NULLIF($2, ''), lang) OR zone IS DISTINCT FROM coalesce($3, zone))`,
		roomID, lang, zone)
	if err != nil {
		return fmt.Errorf("updatePersonContext %d: %w", roomID, err)
	}
	return nil
}

// updateRoom writes the room and its log's head (inTx announces it once
// committed), and its parties' ranks in the dashboard's order
// (party_ranks) with it, in one statement, with folded writes (the
// change's events and confirmations, an audit entry, a schema seen, the
// lines of the jobs it queued) that touch neither rooms nor party_ranks.
// The ranks take the sides with a pending confirmation from the room as
// the change left it, not from confirmations, which the folded writes
// change in the same statement (and it cannot see their rows).
func updateRoom(b *pgx.Batch, row *roomRow, r *negotiation.Room, now time.Time, folded []foldedWrite) {
	var pending []string
	for _, side := range []negotiation.Side{negotiation.SideA, negotiation.SideB} {
		if r.PendingFor(side) != nil {
			pending = append(pending, string(side))
		}
	}
	// The person's reminders (migration 00031): planned when the turn
	// passes to a person with an address, kept while it stays theirs,
	// cleared when it ends.
	personWaits := r.State == negotiation.StateAwaiting && r.Turn == negotiation.SideB && personAddress(row) != ""
	var firstRemind *time.Time
	if at, ok := negotiation.FirstReminder(now, r.Deadline); personWaits && ok {
		firstRemind = &at
	}
	queueWith(b, folded, updateRoomSQL,
		row.ID, r.State, string(r.ClosedReason), r.Round, string(r.Turn), r.Deadline, row.Seq, row.Snapshot, now, string(row.Head), pending,
		personWaits, firstRemind)
}

// updateRoomSQL's person_turn_at and person_remind_at read the row as it
// was (an UPDATE's SET sees the old values): a turn that was the person's
// already keeps its moments (a sweep may have moved person_remind_at on);
// one that passes to them now ($12) starts at $9 with its first reminder
// $13; any other clears them.
var updateRoomSQL = `WITH r AS (UPDATE rooms SET state = $2, closed_reason = NULLIF($3, ''), round = $4, turn = NULLIF($5, ''),
		deadline = $6, seq = $7, snapshot = $8, updated_at = $9, head_hash = $10,
		person_turn_at = CASE WHEN NOT $12::boolean THEN NULL
			WHEN state = 'awaiting' AND turn = 'b' AND person_turn_at IS NOT NULL THEN person_turn_at ELSE $9 END,
		person_remind_at = CASE WHEN NOT $12::boolean THEN NULL
			WHEN state = 'awaiting' AND turn = 'b' AND person_turn_at IS NOT NULL THEN person_remind_at ELSE $13::timestamptz END
		WHERE id = $1
		RETURNING id, state, turn, deadline, updated_at)` + rerank(`r`, `q.side = ANY($11::text[])`)

// pendingInTable is rerank's test of a party's pending confirmation for
// rooms read from their table.
const pendingInTable = `EXISTS (SELECT 1 FROM confirmations c
					WHERE c.room_id = r.id AND c.side = q.side AND c.status = 'pending')`

// rerank is the statement that sets the ranks of the parties of the rooms
// r (a table or a CTE of rooms' id, state, turn, deadline and updated_at,
// filtered by where) in the dashboard's order: a pending confirmation
// (pending: an SQL test of the party q of room r) first, then the side
// whose turn it is, then the rest by deadline, then the rooms that ended,
// newest first. Only a rank that changes is written.
func rerank(r, pending string, where ...string) string {
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	return `
	UPDATE party_ranks p SET rank = n.rank, rank_key = n.rank_key
	FROM (SELECT q.room_id, q.side,
			CASE
				WHEN r.state = 'agreed' THEN 4
				WHEN r.state = 'closed' THEN 5
				WHEN ` + pending + ` THEN 1
				WHEN r.turn = q.side THEN 2
				ELSE 3 END AS rank,
			CASE
				WHEN r.state IN ('agreed', 'closed') THEN -(extract(epoch FROM r.updated_at) * 1000)::bigint
				ELSE (extract(epoch FROM r.deadline) * 1000)::bigint END AS rank_key
		FROM ` + r + ` r JOIN party_ranks q ON q.room_id = r.id` + cond + `) n
	WHERE p.room_id = n.room_id AND p.side = n.side AND (p.rank, p.rank_key) IS DISTINCT FROM (n.rank, n.rank_key)`
}

// RerankRooms sets the ranks of the parties of rooms first to last-1, for
// rooms written by other means than a move (the bench's seeding).
func RerankRooms(ctx context.Context, tx pgx.Tx, first, last int64) error {
	if _, err := tx.Exec(ctx, rerank(`rooms`, pendingInTable, `r.id >= $1`, `r.id < $2`), first, last); err != nil {
		return fmt.Errorf("rerank rooms %d to %d: %w", first, last, err)
	}
	return nil
}

// eventWrite is the write that logs ev as the room's event seq, linked to
// the event before it by the room's head (row.Seq and row.Head are then
// the event's), and ev as logged. It is folded into a statement of the
// change (commit): nothing else the change writes reads the log.
func eventWrite(row *roomRow, ev *negotiation.Event, fingerprint []byte) (foldedWrite, string, error) {
	seq := row.Seq + 1
	j, err := json.Marshal(ev)
	if err != nil {
		return foldedWrite{}, "", fmt.Errorf("eventWrite %d/%d: %w", row.ID, seq, err)
	}
	link := row.Head
	if row.Seq == 0 {
		link = negotiation.ChainGenesis
	}
	head, err := negotiation.ChainLink(link, seq, j)
	if err != nil {
		return foldedWrite{}, "", fmt.Errorf("eventWrite %d/%d: %w", row.ID, seq, err)
	}
	// roomLogLight's stub of the event takes its moment from the column
	// at, which keeps microseconds: an event of a finer moment (a
	// simulated clock; the database's has microseconds) is logged without
	// its verdict, so that it is read whole.
	verdict := string(ev.Verdict)
	if ev.At.Nanosecond()%1000 != 0 {
		verdict = ""
	}
	w := foldedWrite{sql: `INSERT INTO room_events (room_id, seq, kind, side, fingerprint, event, at, prev_hash, verdict)
		VALUES ($1, $2, $3, NULLIF($4, ''), $5, $6, $7, $8, NULLIF($9, ''))`,
		args: []any{row.ID, seq, ev.Kind, string(ev.Side), fingerprint, string(j), ev.At, string(link), verdict}}
	row.Seq, row.Head = seq, head
	return w, string(j), nil
}

// selectChain reads a room's log with the link each event carries, and
// the room's head, for the checker.
func selectChain(ctx context.Context, q querier, roomID int64) (events [][]byte, links []negotiation.SubjectHash, head negotiation.SubjectHash, err error) {
	rows, err := q.Query(ctx, `SELECT e.event, coalesce(e.prev_hash, ''), coalesce(r.head_hash, '')
		FROM rooms r LEFT JOIN room_events e ON e.room_id = r.id WHERE r.id = $1 ORDER BY e.seq`, roomID)
	if err != nil {
		return nil, nil, "", fmt.Errorf("selectChain %d: %w", roomID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var ev *string
		var link string
		if err := rows.Scan(&ev, &link, &head); err != nil {
			return nil, nil, "", fmt.Errorf("selectChain %d: %w", roomID, err)
		}
		if ev != nil {
			events, links = append(events, []byte(*ev)), append(links, negotiation.SubjectHash(link))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, "", fmt.Errorf("selectChain %d: %w", roomID, err)
	}
	return events, links, head, nil
}

// lastFingerprint is the fingerprint of side's latest event of kind in
// the room (nil: none, or one logged without).
func lastFingerprint(ctx context.Context, q querier, roomID int64, side negotiation.Side, kind negotiation.EventKind) ([]byte, error) {
	var fp []byte
	err := q.QueryRow(ctx, `SELECT fingerprint FROM room_events WHERE room_id = $1 AND side = $2 AND kind = $3
		ORDER BY seq DESC LIMIT 1`, roomID, string(side), string(kind)).Scan(&fp)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lastFingerprint %d/%s/%s: %w", roomID, side, kind, err)
	}
	return fp, nil
}

// errNoInvitation answers a code that opens no room (one that did is
// refused with the reason: invitationGone).
var errNoInvitation = Errorf(ErrNotFound, "invite: no invitation has this code")

// roomByInvite is the room an invitation code opens, and its account (its
// initiator's), read without a lock.
func roomByInvite(ctx context.Context, q querier, codeHash []byte) (roomID, accountID int64, err error) {
	err = q.QueryRow(ctx, `SELECT id, account_id FROM rooms WHERE invite_code_hash = $1`, codeHash).Scan(&roomID, &accountID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, errNoInvitation
	}
	if err != nil {
		return 0, 0, fmt.Errorf("roomByInvite: %w", err)
	}
	return roomID, accountID, nil
}

// roomToAnswer is roomByInvite for a person's answer, which also takes
// the writer's lock on the address their seat will hold (store_profile.go):
// email, or else the invitation's, as the room holds it now (an answer
// reads it again once the room is locked: an erasure that committed
// meanwhile has forgotten it). The lock is taken in this statement (no
// round trip of its own), after the room's row was found and before the
// answer locks any row.
func roomToAnswer(ctx context.Context, q querier, codeHash []byte, email *string) (roomID, accountID int64, err error) {
	var locked *string
	err = q.QueryRow(ctx, `SELECT id, account_id,
		pg_advisory_xact_lock_shared($2, hashtext(lower(coalesce($3::text, invite_email))))::text
		FROM rooms WHERE invite_code_hash = $1`, codeHash, int32(addressLockClass), email).Scan(&roomID, &accountID, &locked)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, errNoInvitation
	}
	if err != nil {
		return 0, 0, fmt.Errorf("roomToAnswer: %w", err)
	}
	return roomID, accountID, nil
}

// selectRoomToJoin reads and locks the room an invitation code opens, for
// the agent of account accountID and human ownerUserID about to join it:
// with the webhook endpoints of its parties' accounts and of accountID,
// the addresses of their humans and of ownerUserID, and the joiner's human
// context (as selectHumanContext, against side a's schema), in one
// statement; it also takes the lock of the pair of accounts the join
// seats (lockPairSQL), so that the join reads the marks of their earlier
// rooms (selectLimitMarks) after any other join between them committed.
func selectRoomToJoin(ctx context.Context, q querier, codeHash []byte, accountID, ownerUserID int64) (*roomRow, error) {
	h := &humanRow{}
	var hooks, recips []byte
	r, err := scanRoom(q.QueryRow(ctx, roomSelect+hookTargetsCol(`pa.account_id, pb.account_id, $2`)+
		recipientsCol(`pa.owner_user_id, pb.owner_user_id, $3`)+`,
		EXISTS (SELECT 1 FROM seen_schemas s WHERE s.account_id = $2 AND s.fingerprint = pa.schema_fp),
		(SELECT u.time_zone FROM users u WHERE u.id = $3),
		coalesce((SELECT coalesce(u.language, u.page_language, u.oidc_locale) FROM users u WHERE u.id = $3), ''),
		`+lockPairSQL(`r.account_id`, `$2`, `$4`)+`
		FROM rooms r`+roomJoins+` WHERE r.invite_code_hash = $1 FOR UPDATE OF r`, codeHash, accountID, ownerUserID, int32(limitMarksLockClass)),
		&hooks, &recips, &h.seen, &h.zone, &h.lang, new(string))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNoInvitation
	}
	if err != nil {
		return nil, fmt.Errorf("selectRoomToJoin: %w", err)
	}
	if len(r.log) != r.Seq { // read before the lock: current re-reads
		return r, r.current(ctx, q)
	}
	if err := r.setMoveCols(hooks, recips, accountID); err != nil {
		return nil, err
	}
	r.setHuman(negotiation.SideB, h)
	return r, nil
}

// selectRoomIDs lists every room, oldest first (the consistency checker).
func selectRoomIDs(ctx context.Context, q querier) ([]int64, error) {
	rows, err := q.Query(ctx, `SELECT id FROM rooms ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("selectRoomIDs: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("selectRoomIDs: %w", err)
	}
	return ids, nil
}

// storedColumns are the columns a room keeps beside its snapshot, for
// lists, the sweep and its indexes.
type storedColumns struct {
	state, closedReason, round, turn string
	deadline, expiresAt              time.Time
}

// selectRoomColumns reads a room's storedColumns, for check.
func selectRoomColumns(ctx context.Context, q querier, roomID int64) (storedColumns, error) {
	var c storedColumns
	err := q.QueryRow(ctx, `SELECT state, coalesce(closed_reason, ''), round::text, coalesce(turn, ''), deadline, expires_at
		FROM rooms WHERE id = $1`, roomID).Scan(&c.state, &c.closedReason, &c.round, &c.turn, &c.deadline, &c.expiresAt)
	if err != nil {
		return c, fmt.Errorf("selectRoomColumns %d: %w", roomID, err)
	}
	return c, nil
}
