package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The dev outbox keeps mail instead of sending it when no SMTP server is
// configured, for the dev outbox page (GET /dev/outbox).

// OutboxMail is one kept message.
type OutboxMail struct {
	ID        int64
	To        string
	Subject   string
	Raw       []byte // as it would have been sent (RFC 5322)
	CreatedAt time.Time
}

// SaveOutbox keeps a message (notify.OutboxStore).
func (n *Notifications) SaveOutbox(ctx context.Context, to, subject string, raw []byte) error {
	_, err := n.pool.Exec(ctx, `INSERT INTO dev_outbox (to_addr, subject, raw, created_at) VALUES ($1, $2, $3, $4)`,
		to, subject, raw, n.now())
	if err != nil {
		return fmt.Errorf("dev outbox: %w", err)
	}
	return nil
}

// Outbox lists the latest kept messages, newest first (without Raw).
func (n *Notifications) Outbox(ctx context.Context, limit int) ([]OutboxMail, error) {
	if limit <= 0 || limit > 500 {
		limit = 500
	}
	rows, err := n.pool.Query(ctx, `SELECT id, to_addr, subject, created_at FROM dev_outbox ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("dev outbox: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (OutboxMail, error) {
		var m OutboxMail
		err := row.Scan(&m.ID, &m.To, &m.Subject, &m.CreatedAt)
		return m, err
	})
}

// OutboxMessage returns one kept message, with Raw.
func (n *Notifications) OutboxMessage(ctx context.Context, id int64) (OutboxMail, error) {
	m := OutboxMail{ID: id}
	err := n.pool.QueryRow(ctx, `SELECT to_addr, subject, raw, created_at FROM dev_outbox WHERE id = $1`, id).
		Scan(&m.To, &m.Subject, &m.Raw, &m.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, Errorf(ErrNotFound, "no message %d in the outbox", id)
	}
	return m, err
}
