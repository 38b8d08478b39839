package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/negotiation"
)

// The lists' SQL: an agent's rooms (negotiation_list) and a human's
// (the dashboard), read from the rooms' columns, never restored.

// summaryRow is a room's list entry as read, before the side is applied.
type summaryRow struct {
	Summary
	side      negotiation.Side
	salt      []byte
	tokenHash []byte
	// tokenBefore is, during a rotation of SECRET_KEY, the seatHash.prev
	// that found the entry (summariesByTokensRotating); nil otherwise.
	tokenBefore []byte
}

// summarySelect is a list entry of party p; the caller's WHERE follows.
// Whether the side's human is asked is a lateral probe of the one pending
// confirmation (confirmations_one_pending), room by room: as an EXISTS in
// the select list, a generic plan may hash every pending confirmation of
// the database instead, on each call.
const summarySelect = summaryCols + summaryFrom + `
		WHERE `

const summaryCols = `SELECT r.id, p.side, p.token_salt, p.token_hash, r.state, coalesce(r.closed_reason, ''), r.round, r.turn,
		r.deadline, CASE WHEN r.state = 'draft' THEN least(r.expires_at, r.deadline) END, coalesce(r.title, ''), c.asked IS NOT NULL`

const summaryFrom = `
		FROM parties p JOIN rooms r ON r.id = p.room_id
		LEFT JOIN LATERAL (SELECT true AS asked FROM confirmations c
			WHERE c.room_id = r.id AND c.side = p.side AND c.status = 'pending' LIMIT 1) c ON true`

// summariesByTokensRotating is selectSummariesByTokens during a rotation:
// the seats found by their tokens' hashes ($2) or by their tokens from
// before the rotation ($4, seatHash.prev), each by its index; an entry
// found by the latter says which one found it.
const summariesByTokensRotating = summaryCols + `, s.before` + `
		FROM (SELECT room_id, side, NULL::bytea AS before FROM parties WHERE token_hash = ANY($2)
			UNION ALL SELECT room_id, side, token_hmac FROM party_tokens_before WHERE token_hmac = ANY($4)) s
		JOIN parties p ON p.room_id = s.room_id AND p.side = s.side JOIN rooms r ON r.id = p.room_id
		LEFT JOIN LATERAL (SELECT true AS asked FROM confirmations c
			WHERE c.room_id = r.id AND c.side = p.side AND c.status = 'pending' LIMIT 1) c ON true
		WHERE p.account_id = $1 AND p.owner_user_id = $3`

// selectSummariesByTokens reads the list entries of the account's parties
// of ownerUserID's (as selectSeat) whose room tokens hash to hashes (any
// order; a hash of no such party has no entry).
//
// During a rotation of SECRET_KEY, prevs are the tokens' seatHash.prev:
// a seat re-keyed by the rotation is found by its token from before too
// (its entry's tokenBefore is then the one given).
func selectSummariesByTokens(ctx context.Context, q querier, accountID, ownerUserID int64, hashes, prevs [][]byte) ([]summaryRow, error) {
	var rows pgx.Rows
	var err error
	if prevs == nil {
		rows, err = q.Query(ctx, summarySelect+`p.account_id = $1 AND p.owner_user_id = $3 AND p.token_hash = ANY($2)`, accountID, hashes, ownerUserID)
	} else {
		rows, err = q.Query(ctx, summariesByTokensRotating, accountID, hashes, ownerUserID, prevs)
	}
	if err != nil {
		return nil, fmt.Errorf("selectSummariesByTokens: %w", err)
	}
	out, err := collectSummariesWith(rows, prevs != nil)
	if err != nil {
		return nil, fmt.Errorf("selectSummariesByTokens: %w", err)
	}
	return out, nil
}

// summariesByAgentSQL is an agent's list entries, newest room first,
// before a room id ($3). It is written on -room_id, as its index
// parties_agent_newest (migration 00014) is: every condition and the order
// are the index's, and no other index yields that order, so whatever plan
// the prepared statement gets reads the agent's own entries only. Ordered
// by room_id instead, a generic plan (costed as if each tenant held an
// equal share of the rooms) may prefer walking parties' primary key down
// from the newest room, through every other tenant's rooms (TestListPlans).
const summariesByAgentSQL = summarySelect + `p.account_id = $1 AND p.agent_id = $2 AND -p.room_id > -$3::bigint
			ORDER BY -p.room_id LIMIT $4`

// selectSummariesByAgent reads at most limit list entries of the agent's
// parties, newest room first, of rooms before the room id before (keyset).
func selectSummariesByAgent(ctx context.Context, q querier, accountID, agentID, before int64, limit int) ([]summaryRow, error) {
	rows, err := q.Query(ctx, summariesByAgentSQL, accountID, agentID, before, limit)
	if err != nil {
		return nil, fmt.Errorf("selectSummariesByAgent %d: %w", agentID, err)
	}
	out, err := collectSummaries(rows)
	if err != nil {
		return nil, fmt.Errorf("selectSummariesByAgent %d: %w", agentID, err)
	}
	return out, nil
}

func collectSummaries(rows pgx.Rows) ([]summaryRow, error) { return collectSummariesWith(rows, false) }

// collectSummariesWith is collectSummaries of summariesByTokensRotating
// when before.
func collectSummariesWith(rows pgx.Rows, before bool) ([]summaryRow, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (summaryRow, error) {
		var r summaryRow
		var deadline time.Time
		var invitationEnd *time.Time // negotiation.Room.InvitationEnd, while nobody joined
		dest := []any{&r.RoomID, &r.side, &r.salt, &r.tokenHash, &r.State, &r.ClosedReason, &r.Round, &r.Turn,
			&deadline, &invitationEnd, &r.Title, &r.PendingConfirmation}
		if before {
			dest = append(dest, &r.tokenBefore)
		}
		err := row.Scan(dest...)
		r.Deadline = deadline.UTC().Format(timeLayout)
		if invitationEnd != nil {
			r.InvitationExpires = invitationEnd.UTC().Format(timeLayout)
		}
		return r, err
	})
}

// selectHumanSummaries reads at most limit rooms userID may see (every
// room of the accounts sc.whole, their own seats' in sc.own), with ranks lo to hi, after the cursor, in the list's order;
// with each its place in the list (a cursor). Turn is the side that moves
// ("a", "b" or "").
func selectHumanSummaries(ctx context.Context, q querier, userID int64, sc roomScope, lo, hi Rank, after listCursor, limit int) ([]HumanSummary, []listCursor, error) {
	rows, err := q.Query(ctx, humanSummariesSQL,
		userID, lo, hi, after.rank, after.key, after.room, after.side, limit, sc.whole, sc.own)
	if err != nil {
		return nil, nil, fmt.Errorf("selectHumanSummaries: %w", err)
	}
	var keys []listCursor
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (HumanSummary, error) {
		var h HumanSummary
		var k listCursor
		err := row.Scan(&h.RoomID, &h.Side, &h.Rank, &k.key, &h.AccountSlug, &h.AccountName, &h.Title, &h.State,
			&h.ClosedReason, &h.Round, &h.Turn, &h.Deadline, &h.InvitationExpires, &h.UpdatedAt, &h.OwnerIsYou)
		k.rank, k.room, k.side = int(h.Rank), h.RoomID, string(h.Side)
		keys = append(keys, k)
		return h, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("selectHumanSummaries: %w", err)
	}
	return out, keys, nil
}

// humanSummariesSQL is a human's list: per account they may see (whole:
// every room; else their own seats'), its ranks in party_ranks_account's
// order from the cursor on.
const humanSummariesSQL = `
		SELECT k.room_id, k.side, k.rank, k.rank_key, a.slug, a.name, coalesce(r.title, ''), r.state,
		       coalesce(r.closed_reason, ''), r.round, coalesce(r.turn, ''), r.deadline,
		       CASE WHEN r.state = 'draft' AND r.expires_at < r.deadline THEN r.expires_at END, r.updated_at,
		       coalesce(p.owner_user_id = $1, false)
		FROM (SELECT a, true FROM unnest($9::bigint[]) a UNION ALL SELECT a, false FROM unnest($10::bigint[]) a) AS m(account_id, whole)
		CROSS JOIN LATERAL (
			SELECT q.room_id, q.side, q.rank, q.rank_key, q.account_id FROM party_ranks q
			WHERE q.account_id = m.account_id AND q.rank BETWEEN $2 AND $3
			  AND (q.rank, q.rank_key, q.room_id, q.side) > ($4, $5, $6, $7)
			  AND (m.whole OR EXISTS (SELECT 1 FROM parties o WHERE o.room_id = q.room_id AND o.side = q.side AND o.owner_user_id = $1))
			ORDER BY q.rank, q.rank_key, q.room_id, q.side
			LIMIT $8
		) k
		JOIN parties p ON p.room_id = k.room_id AND p.side = k.side
		JOIN rooms r ON r.id = p.room_id
		JOIN accounts a ON a.id = k.account_id
		ORDER BY k.rank, k.rank_key, k.room_id, k.side
		LIMIT $8`

// countWaiting counts the rooms userID may see (sc) waiting for a human.
func countWaiting(ctx context.Context, q querier, userID int64, sc roomScope) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM
		(SELECT a, true FROM unnest($2::bigint[]) a UNION ALL SELECT a, false FROM unnest($3::bigint[]) a) AS m(account_id, whole)
		JOIN party_ranks k ON k.account_id = m.account_id AND k.rank = 1
		WHERE m.whole OR EXISTS (SELECT 1 FROM parties o WHERE o.room_id = k.room_id AND o.side = k.side AND o.owner_user_id = $1)`,
		userID, sc.whole, sc.own).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("countWaiting: %w", err)
	}
	return n, nil
}
