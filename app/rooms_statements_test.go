package app

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestMoveStatements holds what a counter costs PostgreSQL: the locked
// seat, then the room's UPDATE (its event, its ranks) with the Sync that
// commits it, in two round trips and no BEGIN or COMMIT (pipeTx); the same
// when it voids a pending confirmation (the settle rides on the room's
// statement too).
func TestMoveStatements(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	traced, st := rb.tracedRooms(t)

	// The move's own statements: the live pages' announcement goes after
	// the commit, apart (announcer), when its window ends.
	moveOnly := func() (sql []string, trips int) {
		traced.announcer.flush()
		return ownStatements(st.take())
	}
	measure := func(what string, wantStatements, wantTrips int, move func() error) {
		t.Helper()
		moveOnly()
		if err := move(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if sql, trips := moveOnly(); len(sql) != wantStatements || trips != wantTrips {
			t.Errorf("%s: %d statements in %d round trips, want %d in %d:\n%s", what, len(sql), trips, wantStatements, wantTrips, strings.Join(sql, "\n"))
		}
	}
	measure("a counter", 2, 2, func() error {
		_, err := traced.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")})
		return err
	})
	v, err := rb.rooms.Read(rb.ctx, rb.a, ta)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, "approve", v.TermsOnTable.Options[0].SubjectHash); err != nil {
		t.Fatal(err)
	}
	measure("a counter voiding its own request", 2, 2, func() error {
		_, err := traced.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "counter", Subject: meeting(12, "")})
		return err
	})
	rb.checkClean(t)

	// An offer that passes the turn to a person answering in the browser:
	// their turn mail's job and its log line, and their reminders planned
	// in the room's own statement (person_remind_at), nothing more: 3 in
	// 3 round trips, as before they were (the seat, River's job insert, the
	// room's statement; River's notification of the job, when it sends one,
	// not counted).
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin}); err != nil {
		t.Fatal(err)
	}
	measure("an offer that makes it a person's turn", 3, 3, func() error {
		_, err := traced.Propose(rb.ctx, rb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(9, "")})
		return err
	})
	var planned bool
	if err := rb.pool.QueryRow(rb.ctx, `SELECT person_remind_at IS NOT NULL FROM rooms WHERE invite_email = 'dave@stranger.test'`).Scan(&planned); err != nil || !planned {
		t.Errorf("the person's reminders not planned by the offer: %v %v", planned, err)
	}
}

// TestReplacedRequest: a side's new request takes the place of its pending
// one in one change (the settle is written before the insert, which
// confirmations_one_pending checks), and the ranks see the new one.
func TestReplacedRequest(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	q := rb.askB(t, "", 10, "")
	v, first := q.v, q.cv
	second, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, q.tb, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	var status, why string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT status, coalesce(why, '') FROM confirmations WHERE id = $1`, first.ID).Scan(&status, &why); err != nil {
		t.Fatal(err)
	}
	if status != "void" || why != voidReplaced {
		t.Errorf("the replaced request: %s (%q), want void (%q)", status, why, voidReplaced)
	}
	var pending []string
	rows, _ := rb.pool.Query(rb.ctx, `SELECT id FROM confirmations WHERE room_id = $1 AND status = 'pending'`, v.RoomID)
	if pending, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0] != second.ID {
		t.Errorf("pending %v, want [%s]", pending, second.ID)
	}
	var rank int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT rank FROM party_ranks WHERE room_id = $1 AND side = 'b'`, v.RoomID).Scan(&rank); err != nil {
		t.Fatal(err)
	}
	if rank != 1 {
		t.Errorf("b's rank %d, want 1 (a pending confirmation)", rank)
	}
	rb.checkClean(t)
}
