package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Channel is what a process does with one PostgreSQL notification
// channel it listens to (Listen).
type Channel struct {
	Name string
	// Notified gets each notification's payload.
	Notified func(payload string)
	// Heard, if set, is called with true once the channel is listened to,
	// at start and after each reconnection (notifications sent while the
	// connection was down are lost: treat everything as changed), and with
	// false as soon as the connection is lost.
	Heard func(listening bool)
}

// Listen LISTENs on the channels on one connection of its own until ctx is
// done. One listener serves a whole process. After a lost connection it
// reconnects, waiting up to 5 s between tries.
func Listen(ctx context.Context, conf *pgx.ConnConfig, log *slog.Logger, channels ...Channel) {
	heard := func(up bool) {
		for _, c := range channels {
			if c.Heard != nil {
				c.Heard(up)
			}
		}
	}
	byName := make(map[string]Channel, len(channels))
	for _, c := range channels {
		byName[c.Name] = c
	}
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, conf)
		for _, c := range channels {
			if err == nil {
				_, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{c.Name}.Sanitize())
			}
		}
		if err == nil {
			wait = 100 * time.Millisecond
			heard(true)
			err = receive(ctx, conn, byName)
			heard(false)
		}
		if conn != nil {
			conn.Close(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("notifications: listener lost its connection; reconnecting", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func receive(ctx context.Context, conn *pgx.Conn, channels map[string]Channel) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if c, ok := channels[n.Channel]; ok {
			c.Notified(n.Payload)
		}
	}
}
