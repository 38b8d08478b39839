package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The seats' SQL: the room a token opens, with what the side's human needs
// with it (their time zone, whether their account has seen the other
// side's schema), and who may see a room.

// selectSeat finds the room a room token opens, within the caller's account
// and for the caller's human only (an agent acts for its human: a
// colleague's seat is not its to read or move in, token or not), with the
// caller's side and its human's context (the time zone, and whether the
// account has seen the other side's schema), in one statement; lock takes
// the room row FOR UPDATE.
// The log comes light (roomLogLight).
func selectSeat(ctx context.Context, q querier, tokenHash seatHash, accountID, ownerUserID int64, lock bool) (*roomRow, negotiation.Side, error) {
	return querySeat(ctx, q, tokenHash, accountID, ownerUserID, lock, -1, false)
}

// selectSeatWhole is selectSeat without a lock, with the log whole: every
// round's terms, for a read of the room's whole history.
func selectSeatWhole(ctx context.Context, q querier, tokenHash seatHash, accountID, ownerUserID int64) (*roomRow, negotiation.Side, error) {
	return querySeat(ctx, q, tokenHash, accountID, ownerUserID, false, -1, true)
}

// selectSeatUnless is selectSeat without a lock, leaving out the snapshot
// and the log when the room is still at seq known: the row then comes back
// with skipped set, and its parties and human context only.
func selectSeatUnless(ctx context.Context, q querier, tokenHash seatHash, accountID, ownerUserID int64, known int) (*roomRow, negotiation.Side, error) {
	return querySeat(ctx, q, tokenHash, accountID, ownerUserID, false, known, false)
}

// humanCols is what a side's card needs of its human, for the side's
// party p and the other party o: whether p's account has seen o's schema,
// and the time zone and language (their setting, else their pages' (page_language),
// else their identity provider's locale) of p's human.
var humanCols = humanColsOf("p.owner_user_id")

// humanColsOf is humanCols with the time zone and language of the user
// the SQL expression user names.
func humanColsOf(user string) string {
	return `,
	EXISTS (SELECT 1 FROM seen_schemas s WHERE s.account_id = p.account_id AND s.fingerprint = o.schema_fp),
	(SELECT u.time_zone FROM users u WHERE u.id = ` + user + `),
	coalesce((SELECT coalesce(u.language, u.page_language, u.oidc_locale) FROM users u WHERE u.id = ` + user + `), '')`
}

// namesCols names, for a message to p's human, p's agent and o's account.
const namesCols = `,
	(SELECT g.name FROM agents g WHERE g.account_id = p.account_id AND g.id = p.agent_id),
	(SELECT a.name FROM accounts a WHERE a.id = o.account_id)`

// otherParty joins o, the party across from p.
const otherParty = ` LEFT JOIN parties o ON o.room_id = r.id AND o.side <> p.side`

// seatCols is what a seat's statement reads besides its room: the side,
// and its human's context (as humanCols), of the side's party p and the
// other party o, with the human's row joined as u (seatFrom).
const seatCols = `, p.side,
	EXISTS (SELECT 1 FROM seen_schemas s WHERE s.account_id = p.account_id AND s.fingerprint = o.schema_fp),
	u.time_zone, coalesce(u.language, u.page_language, u.oidc_locale, '')`

// seatFrom finds a seat by its token, for the caller's account and human:
// the parties are the side's (p) and the other (o), each joined once (the
// room's columns are theirs: scanRoom places them by side), and the
// human's row is joined once for both of its columns. A read runs it
// before every move, and the move again under the lock, so each index
// probe it leaves out is PostgreSQL's work saved on most calls.
//
// During a rotation of SECRET_KEY, seatFromRotating finds a seat by its
// token or by its token from before the rotation (party_tokens_before,
// keyed with the previous key: prevTokenHash), in the same statement,
// whose last parameter is that keyed hash.
const seatFrom = `
	FROM parties p JOIN rooms r ON r.id = p.room_id` + otherParty + `
	LEFT JOIN users u ON u.id = p.owner_user_id
	WHERE p.token_hash = $1 AND p.account_id = $2 AND p.owner_user_id = $3`

func seatFromRotating(prev string) string {
	return `
	FROM (SELECT room_id, side FROM parties WHERE token_hash = $1
		UNION ALL SELECT room_id, side FROM party_tokens_before WHERE token_hmac = ` + prev + ` LIMIT 1) s
	JOIN parties p ON p.room_id = s.room_id AND p.side = s.side JOIN rooms r ON r.id = p.room_id` + otherParty + `
	LEFT JOIN users u ON u.id = p.owner_user_id
	WHERE p.account_id = $2 AND p.owner_user_id = $3`
}

// A seat's statements read the log light (roomLogLight): a move and a
// read without history use the terms of the room's latest move only.
// seatSQLWhole reads it whole, for a read of the whole history.
var (
	seatSQL      = roomColumns(`r.snapshot`, roomLogLight, "p", "o") + seatCols + seatFrom
	seatSQLWhole = roomColumns(`r.snapshot`, roomLog, "p", "o") + seatCols + seatFrom
	// A move's seat also reads what its change may need to tell the
	// parties (moveCols). The parties, the log and the human come as the
	// statement's snapshot saw them: one that waited for the lock sees
	// them as before the move it waited for (roomRow.current re-reads).
	// The seat's row is locked FOR SHARE (seatLock): a removal of its
	// human, or the account's deletion, that took the seat meanwhile is
	// seen (the seat is not theirs: nothing moves), and one that comes
	// after waits for the move, then finds the confirmation it asked for
	// and hands it to the account's owners. Read from the snapshot alone,
	// a move in flight asked a removed member, and nobody was told.
	seatSQLLocked = roomColumns(`r.snapshot`, roomLogLight, "p", "o") + seatCols + moveColsOf("p", "o") + seatFrom + seatLock
	seatSQLUnless = roomSelectUnless(`$4`, "p", "o") + seatCols + seatFrom

	seatSQLRotating       = roomColumns(`r.snapshot`, roomLogLight, "p", "o") + seatCols + seatFromRotating(`$4`)
	seatSQLWholeRotating  = roomColumns(`r.snapshot`, roomLog, "p", "o") + seatCols + seatFromRotating(`$4`)
	seatSQLLockedRotating = roomColumns(`r.snapshot`, roomLogLight, "p", "o") + seatCols + moveColsOf("p", "o") + seatFromRotating(`$4`) + seatLock
	seatSQLUnlessRotating = roomSelectUnless(`$4`, "p", "o") + seatCols + seatFromRotating(`$5`)
)

// seatLock locks a move's seat's row FOR SHARE, then its room
// (seatSQLLocked), in that order: a removal or a deletion holds the seats'
// rows while it stops their one-tap links, which a tap holds while it
// waits for the room; a move waiting for the seat must hold no room then.
const seatLock = ` FOR SHARE OF p FOR UPDATE OF r`

func querySeat(ctx context.Context, q querier, hash seatHash, accountID, ownerUserID int64, lock bool, known int, whole bool) (*roomRow, negotiation.Side, error) {
	var side negotiation.Side
	h := &humanRow{}
	var row pgx.Row
	dest := []any{&side, &h.seen, &h.zone, &h.lang}
	var hooks, recips []byte
	tokenHash, prev := hash.token, hash.prev
	switch {
	case lock && prev != nil:
		row = q.QueryRow(ctx, seatSQLLockedRotating, tokenHash, accountID, ownerUserID, prev)
		dest = append(dest, &hooks, &recips)
	case lock:
		row = q.QueryRow(ctx, seatSQLLocked, tokenHash, accountID, ownerUserID)
		dest = append(dest, &hooks, &recips)
	case known >= 0 && prev != nil:
		row = q.QueryRow(ctx, seatSQLUnlessRotating, tokenHash, accountID, ownerUserID, known, prev)
	case known >= 0:
		row = q.QueryRow(ctx, seatSQLUnless, tokenHash, accountID, ownerUserID, known)
	case whole && prev != nil:
		row = q.QueryRow(ctx, seatSQLWholeRotating, tokenHash, accountID, ownerUserID, prev)
	case whole:
		row = q.QueryRow(ctx, seatSQLWhole, tokenHash, accountID, ownerUserID)
	case prev != nil:
		row = q.QueryRow(ctx, seatSQLRotating, tokenHash, accountID, ownerUserID, prev)
	default:
		row = q.QueryRow(ctx, seatSQL, tokenHash, accountID, ownerUserID)
	}
	r, err := scanRoom(row, dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", Errorf(ErrNotFound, "room_token: no room of yours has this token")
	}
	if err != nil {
		return nil, "", fmt.Errorf("selectSeat: %w", err)
	}
	r.light = !whole
	if lock {
		if err := r.setMoveCols(hooks, recips); err != nil {
			return nil, "", err
		}
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
	lang    string // a language tag or a locale; "": none known
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

// selectHumanContext is what a party's card needs of its human: whether
// the party's account has seen the schema of fingerprint fp, and the time
// zone and language of the party's human (nil: none set).
func selectHumanContext(ctx context.Context, q querier, p *partyRow, fp string) (*humanRow, error) {
	h := &humanRow{}
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM seen_schemas WHERE account_id = $1 AND fingerprint = $2),
		(SELECT time_zone FROM users WHERE id = $3), coalesce((SELECT coalesce(language, page_language, oidc_locale) FROM users WHERE id = $3), '')`,
		p.AccountID, fp, p.OwnerUserID).Scan(&h.seen, &h.zone, &h.lang)
	if err != nil {
		return nil, fmt.Errorf("selectHumanContext: %w", err)
	}
	return h, nil
}

// schemaSeenWrite records, folded into a statement of a change's batch
// (foldedWrite), that the account has seen the schema of fingerprint fp
// (its human confirmed terms written in it). A move reads seen_schemas
// only before its writes.
func schemaSeenWrite(accountID int64, fp string, at time.Time) foldedWrite {
	return foldedWrite{`INSERT INTO seen_schemas (account_id, fingerprint, seen_at) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, []any{accountID, fp, at}}
}

// selectPersonSeat finds the room a person's token (hashed) opens: side b
// of a room, with no account.
func selectPersonSeat(ctx context.Context, q querier, tokenHash []byte) (int64, error) {
	var roomID int64
	err := q.QueryRow(ctx, `SELECT room_id FROM parties WHERE token_hash = $1 AND side = 'b' AND account_id IS NULL`,
		tokenHash).Scan(&roomID)
	if err != nil {
		return 0, fmt.Errorf("selectPersonSeat: %w", err)
	}
	return roomID, nil
}

// roomPeople is who a side's human sees in a room; each is nil when it
// does not apply.
type roomPeople struct {
	slug, name *string // the side's account
	them       *string // the other side's account, by name
	zone       *string // the viewer's time zone (or the one guessed for them)
}

// selectRoomPeople reads, in one statement, the side's account (mine), the
// other side's account's name (theirs) and the viewer's time zone; for a
// viewer without an account (userID 0) whose zone is not known, that of
// the user guessFrom (the other side's human), if not nil.
func selectRoomPeople(ctx context.Context, q querier, mine, theirs *int64, userID int64, guessFrom *int64) (roomPeople, error) {
	var p roomPeople
	err := q.QueryRow(ctx, `SELECT a.slug, a.name, o.name, coalesce(u.time_zone, g.time_zone) FROM (SELECT) x
		LEFT JOIN accounts a ON a.id = $1 LEFT JOIN accounts o ON o.id = $2 LEFT JOIN users u ON u.id = $3
		LEFT JOIN users g ON g.id = $4`,
		mine, theirs, userID, guessFrom).Scan(&p.slug, &p.name, &p.them, &p.zone)
	if err != nil {
		return roomPeople{}, fmt.Errorf("selectRoomPeople: %w", err)
	}
	return p, nil
}

// selectRoomSeats lists the seats of a room that are an account's, with
// their humans.
func selectRoomSeats(ctx context.Context, q querier, roomID int64) ([]RoomSeat, error) {
	rows, err := q.Query(ctx, `SELECT account_id, coalesce(owner_user_id, 0) FROM parties WHERE room_id = $1 AND account_id IS NOT NULL`, roomID)
	if err != nil {
		return nil, fmt.Errorf("selectRoomSeats %d: %w", roomID, err)
	}
	seats, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RoomSeat])
	if err != nil {
		return nil, fmt.Errorf("selectRoomSeats %d: %w", roomID, err)
	}
	return seats, nil
}

// selectSeatTokenHash is the token hash of a room's seat.
func selectSeatTokenHash(ctx context.Context, q querier, roomID int64, side negotiation.Side) ([]byte, error) {
	var hash []byte
	if err := q.QueryRow(ctx, `SELECT token_hash FROM parties WHERE room_id = $1 AND side = $2`, roomID, side).Scan(&hash); err != nil {
		return nil, fmt.Errorf("selectSeatTokenHash %d: %w", roomID, err)
	}
	return hash, nil
}
