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
	if err := insertOutbox(ctx, n.pool, to, subject, raw, n.now()); err != nil {
		return fmt.Errorf("dev outbox: %w", err)
	}
	return nil
}

// Outbox lists the latest kept messages, newest first (without Raw).
func (n *Notifications) Outbox(ctx context.Context, limit int) ([]OutboxMail, error) {
	if limit <= 0 || limit > 500 {
		limit = 500
	}
	ms, err := selectOutbox(ctx, n.pool, limit)
	if err != nil {
		return nil, fmt.Errorf("dev outbox: %w", err)
	}
	return ms, nil
}

// OutboxMessage returns one kept message, with Raw.
func (n *Notifications) OutboxMessage(ctx context.Context, id int64) (OutboxMail, error) {
	m, err := selectOutboxMessage(ctx, n.pool, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, Errorf(ErrNotFound, "no message %d in the outbox", id)
	}
	return m, err
}
