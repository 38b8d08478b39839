package trust

import (
	"context"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestWaitingReadAcrossNodes: an agent waiting in negotiation_read with
// wait_seconds on one node is answered when the other side moves through
// another node (the mover's process announces the change; the waiter's
// hears it over LISTEN), not when its wait runs out. Nothing is shared
// between the two processes but the database.
func TestWaitingReadAcrossNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dsn := pgtest.NewDSN(t)
	env := []string{"MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0"}
	one, two := newProcess(t, dsn, env...), newProcess(t, dsn, env...)
	one.start()
	two.start()
	w := newWorld(t, dsn, one.base)
	a := newRemote(t, w, one.base, "waitera")
	b := newRemote(t, w, two.base, "moverb")
	ctx := context.Background()
	call := func(r *remote, tool string, args map[string]any) result {
		t.Helper()
		res, err := callOn(ctx, r.session(), tool, args)
		if err != nil || res.err != "" {
			t.Fatalf("%s %s: %v %s", r.slug, tool, err, res.err)
		}
		return res
	}

	for n := range 3 {
		open := call(a, "negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(10 * n)})
		ta := open.str("room_token")
		tb := call(b, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema}).str("room_token")

		// a's agent waits (on node one) for b's counter (made on node two).
		// The wait is well under the client's 20-s timeout.
		const wait = 15 * time.Second
		type answer struct {
			res     result
			err     error
			elapsed time.Duration
		}
		done := make(chan answer, 1)
		go func() {
			start := time.Now()
			res, err := callOn(ctx, a.session(), "negotiation_read", map[string]any{"room_token": ta, "wait_seconds": int(wait / time.Second)})
			done <- answer{res, err, time.Since(start)}
		}()
		time.Sleep(time.Second) // the read has reached node one and waits
		call(b, "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(10*n + 1)})
		got := <-done
		if got.err != nil || got.res.err != "" {
			t.Fatalf("the waiting read: %v %s", got.err, got.res.err)
		}
		if got.res.str("turn") != "you" {
			t.Errorf("room %d: the waiting read answered with turn %q, want the counter made on the other node (turn you)", n, got.res.str("turn"))
		}
		// Answered by the change, not by the end of the wait (with a wide
		// margin for a loaded machine: the move came after one second).
		if got.elapsed > wait-3*time.Second {
			t.Errorf("room %d: the waiting read answered after %v of its %v: it did not hear the move made on the other node", n, got.elapsed.Round(time.Millisecond), wait)
		}
		t.Logf("room %d: the wait on node one answered %v after it began (the move on node two at 1 s)", n, got.elapsed.Round(time.Millisecond))
	}
}
