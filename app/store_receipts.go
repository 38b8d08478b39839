package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/receipt"
)

// The SQL of receipts, and of the facts a receipt names.

// selectReceipt reads a room's receipt (ok false: none issued yet).
func selectReceipt(ctx context.Context, q querier, roomID int64) (jws string, ok bool, err error) {
	err = q.QueryRow(ctx, `SELECT jws FROM receipts WHERE room_id = $1`, roomID).Scan(&jws)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("selectReceipt %d: %w", roomID, err)
	}
	return jws, true, nil
}

// insertReceipt keeps a room's receipt unless one was kept first, and
// returns the one kept. The second statement sees a receipt another
// transaction committed while the insert waited for it.
func insertReceipt(ctx context.Context, q querier, roomID int64, kid, jws string, at time.Time) (string, error) {
	if _, err := q.Exec(ctx, `INSERT INTO receipts (room_id, kid, jws, issued_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (room_id) DO NOTHING`, roomID, kid, jws, at); err != nil {
		return "", fmt.Errorf("insertReceipt %d: %w", roomID, err)
	}
	kept, ok, err := selectReceipt(ctx, q, roomID)
	if err == nil && !ok {
		err = fmt.Errorf("insertReceipt %d: the receipt kept is gone", roomID)
	}
	return kept, err
}

// keepReceipt keeps the receipt of a room agreed in the caller's
// transaction: nobody can have kept one before.
func keepReceipt(ctx context.Context, q querier, roomID int64, kid, jws string, at time.Time) error {
	if _, err := q.Exec(ctx, `INSERT INTO receipts (room_id, kid, jws, issued_at) VALUES ($1, $2, $3, $4)`,
		roomID, kid, jws, at); err != nil {
		return fmt.Errorf("keepReceipt %d: %w", roomID, err)
	}
	return nil
}

// sideFacts is what a receipt says of one side besides the log: its
// account's name, and how its confirmation was answered and by whom.
type sideFacts struct {
	account string
	channel receipt.Channel
	by      string
}

// selectReceiptFacts reads both sides' facts: side a's with confirmation
// ca, side b's with cb. A confirmation answered before its channel was
// recorded (migration 00019) is told by its used one-tap link, else it was
// the dashboard; one with no row at all was a person's answer on the
// invitation page (asked and answered at once).
func selectReceiptFacts(ctx context.Context, q querier, roomID int64, ca, cb string) ([2]sideFacts, error) {
	var out [2]sideFacts
	rows, err := q.Query(ctx, `SELECT p.side, coalesce(a.name, ''),
			coalesce(c.channel, (SELECT t.channel FROM onetap_tokens t WHERE t.room_id = c.room_id AND t.confirmation_id = c.id
				AND t.used_at IS NOT NULL LIMIT 1), CASE WHEN c.id IS NULL THEN 'invitation' ELSE 'dashboard' END),
			coalesce(u.display_name, '')
		FROM parties p LEFT JOIN accounts a ON a.id = p.account_id
		LEFT JOIN confirmations c ON c.room_id = p.room_id AND c.id = CASE p.side WHEN 'a' THEN $2 ELSE $3 END
		LEFT JOIN users u ON u.id = c.decided_by
		WHERE p.room_id = $1`, roomID, ca, cb)
	if err != nil {
		return out, fmt.Errorf("selectReceiptFacts %d: %w", roomID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var side string
		var f sideFacts
		if err := rows.Scan(&side, &f.account, &f.channel, &f.by); err != nil {
			return out, fmt.Errorf("selectReceiptFacts %d: %w", roomID, err)
		}
		if side == "b" {
			out[1] = f
		} else {
			out[0] = f
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("selectReceiptFacts %d: %w", roomID, err)
	}
	return out, nil
}

// selectInstallation reads the installation's id (one row, made by
// migration 00019).
func selectInstallation(ctx context.Context, q querier) (string, error) {
	var id string
	if err := q.QueryRow(ctx, `SELECT id::text FROM installation`).Scan(&id); err != nil {
		return "", fmt.Errorf("selectInstallation: %w", err)
	}
	return id, nil
}
