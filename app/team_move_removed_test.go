package app_test

import (
	"testing"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// TestMoveWhileItsPersonIsRemoved: Mo's agent asks him to confirm a
// cancel while Ann removes him. The removal hands the pending
// confirmations of his seats to the owners (askOwners); the move read his
// seat as his from its snapshot (the removal had not committed) and
// committed its confirmation after the removal had read the pending ones:
// Mo's request was then skipped (he no longer answers for the seat) and
// the owners were never asked, so the room waited with nobody told. A
// test transaction holds the removal after it handed the seats over (a
// table it writes next), so the move comes in that window whatever the
// timing. Now the move waits for the removal and finds the seat no longer
// Mo's (or, first, its confirmation is handed to the owners).
func TestMoveWhileItsPersonIsRemoved(t *testing.T) {
	tb, ann, _, mo, oz := lifeTeam(t)
	moAgent, open := moAgentsRoom(t, tb, mo, oz)
	hold := pgtest.HoldLock(t, tb.pool, `LOCK TABLE user_sessions IN SHARE MODE`)
	removed := make(chan error, 1)
	go func() { removed <- tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID) }()
	hold.WaitFor(1, "the removal does not wait for the held table")
	moved := make(chan error, 1)
	go func() {
		_, _, err := tb.rooms.RequestConfirmation(tb.ctx, moAgent, open.RoomToken, negotiation.VerdictCancel, "")
		moved <- err
	}()
	hold.WaitForOr(2, func() bool { return len(moved) > 0 }, "the move neither done nor waiting")
	hold.Release()
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	merr := <-moved
	var owners int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM river_job WHERE args->>'topic' = 'request' AND (args->>'user_id')::bigint = $1`,
		ann.ID).Scan(&owners); err != nil {
		t.Fatal(err)
	}
	if merr == nil && owners == 0 {
		t.Fatal("the confirmation asked by a removed member's agent went to nobody: no request to the owners")
	}
	if merr != nil {
		var pending int
		if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM confirmations WHERE status = 'pending'`).Scan(&pending); err != nil || pending != 0 {
			t.Fatalf("the move was refused (%v), but %d confirmations wait (%v)", merr, pending, err)
		}
	}
}
