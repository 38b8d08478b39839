package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The SQL of confirmations and of the one-tap tokens bound to them.
// Lookups that find nothing return pgx.ErrNoRows (wrapped), unless said.

// insertConfirmation records a pending confirmation with the moment of its
// first reminder (remindAt nil: none), which the sweep finds it by.
func insertConfirmation(roomID int64, c *negotiation.Confirmation, remindAt *time.Time) foldedWrite {
	return foldedWrite{`INSERT INTO confirmations (room_id, id, side, verdict, subject_hash, status, requested_at, remind_at)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), 'pending', $6, $7)`, []any{roomID, c.ID, c.Side, c.Verdict, string(c.SubjectHash), c.RequestedAt, remindAt}}
}

// settleConfirmation writes what became of a pending confirmation; by is
// how its human answered (zero when it ended without an answer), as a
// write folded into a statement of the change (commit).
func settleConfirmation(roomID int64, id string, status negotiation.Result, why string, by answeredBy, at time.Time) foldedWrite {
	return foldedWrite{`UPDATE confirmations SET status = $3, why = NULLIF($4, ''), decided_at = $5, channel = NULLIF($6, ''), decided_by = $7
		WHERE room_id = $1 AND id = $2 AND status = 'pending'`, []any{roomID, id, status, why, at, string(by.channel), by.user}}
}

// confirmationAnswer is how one of the room's confirmations ended.
type confirmationAnswer struct {
	status negotiation.Result
	hash   negotiation.SubjectHash // "" for none
	why    string                  // why it came out void
	// by is the answer that settled it: its channel and user (nil: none
	// known, or it ended without an answer).
	by answeredBy
}

// selectConfirmationAnswer is how one of the room's confirmations ended.
func selectConfirmationAnswer(ctx context.Context, q querier, roomID int64, id string) (confirmationAnswer, error) {
	var a confirmationAnswer
	err := q.QueryRow(ctx, `SELECT status, coalesce(subject_hash, ''), coalesce(why, ''), coalesce(channel, ''), decided_by
		FROM confirmations WHERE room_id = $1 AND id = $2`, roomID, id).Scan(&a.status, &a.hash, &a.why, &a.by.channel, &a.by.user)
	if err != nil {
		return confirmationAnswer{}, fmt.Errorf("selectConfirmationAnswer %d %s: %w", roomID, id, err)
	}
	return a, nil
}

// selectConfirmationSide is the side a confirmation of the room is for.
func selectConfirmationSide(ctx context.Context, q querier, roomID int64, id string) (negotiation.Side, error) {
	var side negotiation.Side
	err := q.QueryRow(ctx, `SELECT side FROM confirmations WHERE room_id = $1 AND id = $2`, roomID, id).Scan(&side)
	if err != nil {
		return "", fmt.Errorf("selectConfirmationSide %d %s: %w", roomID, id, err)
	}
	return side, nil
}

// selectSettledConfirmation is what became of one of side's confirmations
// (nil, no error: there is no such confirmation of the side).
func selectSettledConfirmation(ctx context.Context, q querier, roomID int64, side negotiation.Side, id string) (*SettledConfirmation, error) {
	if !storableText(id) {
		return nil, nil
	}
	c := &SettledConfirmation{ID: id}
	var why *string
	err := q.QueryRow(ctx, `SELECT verdict, status, why FROM confirmations WHERE room_id = $1 AND id = $2 AND side = $3`,
		roomID, id, side).Scan(&c.Verdict, &c.Status, &why)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("selectSettledConfirmation %d %s: %w", roomID, id, err)
	}
	if why != nil {
		c.Why = *why
	}
	return c, nil
}

// insertOneTap stores a one-tap token (hashed) for a confirmation.
func insertOneTap(ctx context.Context, q querier, roomID int64, tokenHash []byte, confirmationID, channel string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO onetap_tokens (room_id, token_hash, confirmation_id, channel, created_at)
		VALUES ($1, $2, $3, $4, $5)`, roomID, tokenHash, confirmationID, channel, at)
	if err != nil {
		return fmt.Errorf("insertOneTap %d %s: %w", roomID, confirmationID, err)
	}
	return nil
}

// onetapRow is a one-tap token as stored.
type onetapRow struct {
	roomID         int64
	confirmationID string
	usedAt         *time.Time
	stopped        *string // why it stopped unused: left, account_deleted
}

func selectOneTap(ctx context.Context, q querier, tokenHash []byte) (*onetapRow, error) {
	r := &onetapRow{}
	err := q.QueryRow(ctx, `SELECT room_id, confirmation_id, used_at, stopped FROM onetap_tokens WHERE token_hash = $1`,
		tokenHash).Scan(&r.roomID, &r.confirmationID, &r.usedAt, &r.stopped)
	if err != nil {
		return nil, fmt.Errorf("selectOneTap: %w", err)
	}
	return r, nil
}

// useOneTap marks an unused token used and reads its room locked, as
// selectRoom does with lock (roomSQLLocked), with its confirmation's side
// and channel and the side's human (what the link's page shows after the
// answer), in one statement (useOneTapSQL). A second use waits for the
// first's lock on the token and then finds it used (pgx.ErrNoRows, as for
// a token that does not exist).
func useOneTap(ctx context.Context, q querier, tokenHash []byte, at *time.Time) (row *roomRow, confirmationID string, side negotiation.Side, channel string, sentTo int64, err error) {
	var hooks, recips []byte
	h := &humanRow{}
	row, err = scanRoom(q.QueryRow(ctx, useOneTapSQL, tokenHash, at), &hooks, &recips, &confirmationID, &side, &channel, &sentTo,
		&h.seen, &h.zone, &h.lang, &h.agent, &h.them)
	if err == nil {
		err = row.setMoveCols(hooks, recips)
	}
	if err == nil {
		// The statement may have waited for the room's lock: its log and
		// parties are then older than the room row.
		err = row.current(ctx, q)
	}
	if err != nil {
		return nil, "", "", "", 0, fmt.Errorf("useOneTap: %w", err)
	}
	row.setHuman(side, h)
	return row, confirmationID, side, channel, sentTo, nil
}

// useOneTapSQL is roomSQLLocked of the room of the token ($1, hashed) that
// it marks used at $2 (NULL: the statement's moment, the room row's
// first column), with the token's confirmation, side and channel,
// the user its message went to (0: not noted, a link issued before
// migration 00024), and the context of its reader (as oneTapSQL). The token's row is
// locked before the room's (the join needs the UPDATE's row before FOR
// UPDATE takes the room's), as when they were two statements.
var useOneTapSQL = `WITH used AS (UPDATE onetap_tokens t SET used_at = coalesce($2, statement_timestamp()) FROM confirmations c
		WHERE t.token_hash = $1 AND t.used_at IS NULL AND c.room_id = t.room_id AND c.id = t.confirmation_id
		RETURNING t.room_id, t.confirmation_id, c.side, t.channel, t.user_id)
	` + roomSelect + moveCols + `, used.confirmation_id, used.side, used.channel, coalesce(used.user_id, 0)` + humanColsOf(oneTapReader("used")) + namesCols + `
	FROM used JOIN rooms r ON r.id = used.room_id` + roomJoins + `
	LEFT JOIN parties p ON p.room_id = r.id AND p.side = used.side` + otherParty + ` FOR UPDATE OF r`

// oneTapReader is whom a one-tap page speaks to: the side's human, or,
// when the side has none (they left the account), the person the token
// (alias t) was sent to, an owner answering for them.
func oneTapReader(t string) string { return "coalesce(p.owner_user_id, " + t + ".user_id)" }

// oneTapSQL is the room of a one-tap token ($1, hashed) with the context
// of its reader (oneTapReader), and the token and the confirmation as they
// stand.
var oneTapSQL = roomSelect + humanColsOf(oneTapReader("t")) + namesCols + `, t.confirmation_id, t.used_at, t.stopped, c.side, NULLIF(c.status, 'pending'), c.why, c.channel IS NOT NULL
	FROM onetap_tokens t JOIN confirmations c ON c.room_id = t.room_id AND c.id = t.confirmation_id
	JOIN rooms r ON r.id = t.room_id` + roomJoins + `
	LEFT JOIN parties p ON p.room_id = r.id AND p.side = c.side` + otherParty + ` WHERE t.token_hash = $1`

// oneTapCard is what oneTapSQL reads besides the room.
type oneTapCard struct {
	token  onetapRow
	side   negotiation.Side
	status *string // nil while pending
	why    *string
	// answered: a human answered the confirmation (it has the channel
	// of their answer); a settled one without is void because the room
	// moved on before anyone answered.
	answered bool
}

// selectOneTapCard reads the room of a one-tap token, its token and its
// confirmation, with the confirmation's side's human set on the room, in
// one statement.
func selectOneTapCard(ctx context.Context, q querier, tokenHash []byte) (*roomRow, *oneTapCard, error) {
	h := &humanRow{}
	c := &oneTapCard{}
	row, err := scanRoom(q.QueryRow(ctx, oneTapSQL, tokenHash),
		&h.seen, &h.zone, &h.lang, &h.agent, &h.them, &c.token.confirmationID, &c.token.usedAt, &c.token.stopped, &c.side, &c.status, &c.why, &c.answered)
	if err != nil {
		return nil, nil, fmt.Errorf("selectOneTapCard: %w", err)
	}
	c.token.roomID = row.ID
	row.setHuman(c.side, h)
	return row, c, nil
}

// sideAnsweredBy reports whether userID answered a confirmation of the
// room's side.
func sideAnsweredBy(ctx context.Context, q querier, roomID int64, side negotiation.Side, userID int64) (bool, error) {
	var answered bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM confirmations WHERE room_id = $1 AND side = $2 AND decided_by = $3)`,
		roomID, side, userID).Scan(&answered)
	if err != nil {
		return false, fmt.Errorf("sideAnsweredBy %d: %w", roomID, err)
	}
	return answered, nil
}
