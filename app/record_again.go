package app

import (
	"context"
	"time"
)

// recordAgain runs write, and again while it fails with the database away
// or too slow (RetryLater), until ctx ends: for the delivery logs' lines,
// written after a message left (a mail accepted, a webhook answered),
// which the worker cannot write later (its job is done) and whose loss a
// user sees (the log says the message never went) and a rescued job
// repeats (it reads the line first, finds none and sends again). Its
// first try after a restart or a failover meets a connection the pool kept
// from before (57P01 on its first statement: pgxpool checks one only after
// a second idle), and each try retires one; a database away for a few
// seconds is waited for. write must be safe to repeat when it failed.
func recordAgain(ctx context.Context, write func() error) error {
	wait := 20 * time.Millisecond
	for {
		err := write()
		if err == nil || !RetryLater(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}
