package app_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestMemberLeavesWhileAPersonAnswers: a person answering the invitation
// of a member's room with their address (counted against the account's
// invitation cap, which locks the account's row) while that member leaves
// the account (which locks the account's row, then notes the room handed
// over, which waits for the room's row). The answer locked the room, then
// the account: the two waited for each other until PostgreSQL broke the
// deadlock by failing one of them (deadlock_detected: the person's page or
// the leaving member got an internal error). The answer takes the account
// first, as every other path does. A test transaction holds the room's row
// until both wait, the answer first.
func TestMemberLeavesWhileAPersonAnswers(t *testing.T) {
	tb := setupTeams(t, 5, 20)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", "mo@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	mo := tb.person("mo@example.test", true)
	rc, err := river.NewClient(riverpgxv5.New(tb.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: tb.pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: "https://taasky.example", InviteEmailDailyCap: 200})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close)
	moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := rooms.Open(tb.ctx, moAgent, app.OpenInput{Schema: teamSchema})
	if err != nil {
		t.Fatal(err)
	}

	hold, err := tb.pool.Begin(tb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(context.Background()) }()
	if _, err := hold.Exec(tb.ctx, `SELECT 1 FROM rooms WHERE account_id = (SELECT id FROM accounts WHERE slug = 'alpha') FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	waiting := func(n int) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			w, err := pgtest.LockWaits(tb.ctx, tb.pool)
			if err != nil {
				t.Fatal(err)
			}
			if w >= n {
				return
			}
			if time.Now().After(end) {
				t.Fatalf("%d transactions wait for a lock after 10 s, want %d", w, n)
			}
		}
	}
	answered, left := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := rooms.AnswerInvitation(context.Background(), open.InviteCode, app.PersonAnswer{Verdict: app.VerdictJoin, Email: "pat@example.test"})
		answered <- err
	}()
	waiting(1)
	go func() { left <- tb.accounts.Leave(context.Background(), mo.ID, "alpha") }()
	waiting(2)
	if err := hold.Commit(tb.ctx); err != nil {
		t.Fatal(err)
	}
	for what, ch := range map[string]chan error{"the person's answer": answered, "the member's leaving": left} {
		select {
		case err := <-ch:
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no end after 20 s", what)
		}
	}
}
