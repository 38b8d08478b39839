package app

import (
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestCloseAccountRooms: deleting alpha closes its live room and its
// draft with account_deleted (beta's side reads it, and is told by the
// closed notice), leaves the agreed room whole, and every room still
// replays (taasky check).
func TestCloseAccountRooms(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	_, liveB := rb.openJoined(t, OpenInput{}, "")
	draft, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, side := range []struct {
		ag  Agent
		tok string
	}{{rb.b, tb}, {rb.a, ta}} {
		cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, side.ag, side.tok, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		rb.confirm(t, side.ag, side.tok, cv)
	}
	if v, _ := rb.rooms.Read(rb.ctx, rb.b, tb); v.State != negotiation.StateAgreed {
		t.Fatalf("the third room: %s", v.State)
	}
	var jobsBefore int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE args->>'topic' = 'closed'`).Scan(&jobsBefore); err != nil {
		t.Fatal(err)
	}

	n, err := rb.rooms.closeAccountRooms(rb.ctx, rb.a.AccountID)
	if err != nil || n != 2 {
		t.Fatalf("closed %d rooms, %v", n, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.b, liveB); err != nil || v.State != negotiation.StateClosed || v.ClosedReason != negotiation.ClosedAccountDeleted {
		t.Fatalf("the live room, as beta reads it: %+v %v", v, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.a, draft.RoomToken); err != nil || v.ClosedReason != negotiation.ClosedAccountDeleted {
		t.Fatalf("the draft: %+v %v", v, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.b, tb); err != nil || v.State != negotiation.StateAgreed || v.TermsOnTable == nil {
		t.Fatalf("the agreed room, as beta reads it: %+v %v", v, err)
	}
	var jobsAfter int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE args->>'topic' = 'closed'`).Scan(&jobsAfter); err != nil {
		t.Fatal(err)
	}
	if jobsAfter <= jobsBefore {
		t.Fatalf("no closed notice was queued (%d, then %d)", jobsBefore, jobsAfter)
	}
	if n, err := rb.rooms.closeAccountRooms(rb.ctx, rb.a.AccountID); err != nil || n != 0 {
		t.Fatalf("again: closed %d, %v", n, err)
	}
	rb.checkClean(t)
}
