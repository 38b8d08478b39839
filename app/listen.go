package app

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Channel is what a process does with one PostgreSQL notification
// channel it listens to (Listen).
type Channel struct {
	Name string
	// Notified gets each notification's payload. It runs on the listener's
	// goroutine: it must not block (hand slow work to a goroutine of its
	// own), or the other channels' notifications wait behind it.
	Notified func(payload string)
	// Heard, if set, is called with true once the channel is listened to
	// and a notification went through (at start and after each
	// reconnection: notifications sent while the connection was down are
	// lost, so treat everything as changed), and with false as soon as the
	// connection is lost or stops delivering.
	Heard func(listening bool)
}

// probeChannel carries the listener's own probes: a notification it sends
// itself and must hear back, at start and after every probeEvery without a
// notification, within probeWithin, or the connection is taken for lost (a
// dead peer TCP has not noticed yet, a pooler that accepts LISTEN and
// delivers nothing).
const probeChannel = "taasky_probe"

var probeEvery, probeWithin = 15 * time.Second, 5 * time.Second // tests shorten them

var errProbeLost = errors.New("the connection did not deliver its own probe in time")

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
		for _, name := range append([]string{probeChannel}, slices.Collect(maps.Keys(byName))...) {
			if err == nil {
				err = listenOn(ctx, conn, name)
			}
		}
		if err == nil {
			l := &listener{conn: conn, channels: byName}
			if err = l.probe(ctx); err == nil {
				wait = 100 * time.Millisecond
				heard(true)
				err = l.receive(ctx)
				heard(false)
			}
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

type listener struct {
	conn     *pgx.Conn
	channels map[string]Channel
}

// receive hands each notification to its channel, probing the connection
// every probeEvery, until an error.
func (l *listener) receive(ctx context.Context) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, probeEvery)
		n, err := l.conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			l.dispatch(n.Channel, n.Payload)
		case ctx.Err() == nil && wctx.Err() != nil: // quiet for probeEvery
			if err := l.probe(ctx); err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// probe sends a notification to the probe channel on the connection and
// waits up to probeWithin to hear it, handing on what else arrives.
func (l *listener) probe(ctx context.Context) error {
	token := rand.Text()
	pctx, cancel := context.WithTimeout(ctx, probeWithin)
	defer cancel()
	if err := pgNotify(pctx, l.conn, probeChannel, token); err != nil {
		return err
	}
	for {
		n, err := l.conn.WaitForNotification(pctx)
		if err != nil {
			if ctx.Err() == nil && pctx.Err() != nil {
				return errProbeLost
			}
			return err
		}
		if n.Channel == probeChannel && n.Payload == token {
			return nil
		}
		l.dispatch(n.Channel, n.Payload)
	}
}

func (l *listener) dispatch(channel, payload string) {
	if c, ok := l.channels[channel]; ok {
		c.Notified(payload)
	}
}
