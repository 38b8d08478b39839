package app

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// RoomChannel is the PostgreSQL channel every room change notifies (with
// the room id as text) when its transaction commits (see commit).
const RoomChannel = "taasky_room"

// ListenRoomChanges LISTENs on RoomChannel on one connection of its own and
// calls changed with the id of each room that changed, until ctx is done.
// One listener serves a whole process. After a lost connection it
// reconnects (waiting up to 5 s between tries) and calls changed(0): any
// room may have changed meanwhile.
func ListenRoomChanges(ctx context.Context, conf *pgx.ConnConfig, changed func(roomID int64), log *slog.Logger) {
	wait := 100 * time.Millisecond
	for first := true; ctx.Err() == nil; first = false {
		conn, err := pgx.ConnectConfig(ctx, conf)
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+RoomChannel)
		}
		if err == nil {
			wait = 100 * time.Millisecond
			if !first {
				changed(0)
			}
			err = receive(ctx, conn, changed)
		}
		if conn != nil {
			conn.Close(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			return
		}
		log.Warn("room changes: listener lost its connection; reconnecting", "err", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

func receive(ctx context.Context, conn *pgx.Conn, changed func(int64)) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if id, err := strconv.ParseInt(n.Payload, 10, 64); err == nil && id > 0 {
			changed(id)
		}
	}
}
