package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
)

// erasureRace is a person in no account (pat) about to erase their
// profile, and an account (alpha) whose agent invites people.
type erasureRace struct {
	tb    *teamBundle
	river *river.Client[pgx.Tx]
	rooms *app.Rooms
	agent app.Agent
	pat   app.User
}

func setupErasureRace(t *testing.T) *erasureRace {
	tb := setupTeams(t, 5, 20)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
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
	agent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ann.ID), "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	return &erasureRace{tb: tb, river: rc, rooms: rooms, agent: agent, pat: tb.person("pat@example.test", true)}
}

func (e *erasureRace) open(t *testing.T, invite string) *app.OpenResult {
	t.Helper()
	o, err := e.rooms.Open(e.tb.ctx, e.agent, app.OpenInput{Schema: teamSchema, InviteEmail: invite})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// waiters is how many of the test database's sessions wait for a lock.
func (e *erasureRace) waiters(t *testing.T) int {
	t.Helper()
	n, err := pgtest.LockWaits(e.tb.ctx, e.tb.pool)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// addressesLeft counts the seats and rooms that hold pat's address (any
// case).
func (e *erasureRace) addressesLeft(t *testing.T) (seats, rooms int) {
	t.Helper()
	if err := e.tb.pool.QueryRow(e.tb.ctx, `SELECT
		(SELECT count(*) FROM parties WHERE lower(person_email) = $1),
		(SELECT count(*) FROM rooms WHERE lower(invite_email) = $1)`, e.pat.Email).Scan(&seats, &rooms); err != nil {
		t.Fatal(err)
	}
	return seats, rooms
}

func within(t *testing.T, what string, ch chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: no end after 20 s", what)
	}
}

// TestErasureWhileAPersonAnswersTheInvitationMailed: pat answers, without
// giving an address, the invitation mailed to them (so their seat takes
// the invitation's address) while they delete their profile. A test
// transaction holds the room's row: the answer waits for it first, then
// the erasure comes. The erasure's statement used to read the seats before
// the answer's seat existed, wait for the room's row, and commit after the
// answer: the new seat kept the address of a person erased after it was
// written. Both now serialize on the address: whichever comes second sees
// the other's work, and nothing keeps the address.
func TestErasureWhileAPersonAnswersTheInvitationMailed(t *testing.T) {
	e := setupErasureRace(t)
	tb := e.tb
	room := e.open(t, e.pat.Email)
	hold, err := tb.pool.Begin(tb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(context.Background()) }()
	if _, err := hold.Exec(tb.ctx, `SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, room.View.RoomID); err != nil {
		t.Fatal(err)
	}
	answered, erased := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := e.rooms.AnswerInvitation(context.Background(), room.InviteCode, app.PersonAnswer{Verdict: app.VerdictJoin})
		answered <- err
	}()
	for e.waiters(t) < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	go func() { erased <- tb.accounts.DeleteProfile(context.Background(), e.pat.ID, e.pat.Email) }()
	for e.waiters(t) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if err := hold.Commit(tb.ctx); err != nil {
		t.Fatal(err)
	}
	within(t, "the answer", answered)
	within(t, "the erasure", erased)
	if seats, rooms := e.addressesLeft(t); seats != 0 || rooms != 0 {
		t.Fatalf("after the erasure, %d seats and %d rooms hold the erased address", seats, rooms)
	}
}

// TestErasureWhileAPersonAnswersWithTheirAddress: pat gives their address
// (in other letters' case) in an answer, or an agent invites it, while
// pat's erasure runs (their profile's deletion, or their account's): a
// test transaction holds, from before the answer (the open), a finished
// invitation job's row, which the erasure's statement waits for after it
// read the seats and rooms. The answer (the open) used to commit before
// the erasure did and keep the address; it now waits for the erasure, and
// keeps the address only then: a new answer (invitation) given after the
// erasure.
func TestErasureWhileAPersonAnswersWithTheirAddress(t *testing.T) {
	for _, erasure := range []string{"profile", "account"} {
		for _, writer := range []string{"answer", "open"} {
			t.Run(erasure+"/"+writer, func(t *testing.T) {
				e := setupErasureRace(t)
				tb := e.tb
				erase := func() error { return tb.accounts.DeleteProfile(context.Background(), e.pat.ID, e.pat.Email) }
				if erasure == "account" {
					if _, err := tb.accounts.SignUp(tb.ctx, e.pat.ID, "Beta", "beta"); err != nil {
						t.Fatal(err)
					}
					erase = func() error {
						_, err := e.rooms.DeleteAccountNow(context.Background(), e.pat.ID, "beta", "beta")
						return err
					}
				}
				act := func() error {
					_, err := e.rooms.Open(context.Background(), e.agent, app.OpenInput{Schema: teamSchema, InviteEmail: e.pat.Email})
					return err
				}
				if writer == "answer" {
					room := e.open(t, "")
					act = func() error {
						_, err := e.rooms.AnswerInvitation(context.Background(), room.InviteCode,
							app.PersonAnswer{Verdict: app.VerdictJoin, Email: strings.ToUpper(e.pat.Email[:1]) + e.pat.Email[1:]})
						return err
					}
				}
				e.open(t, e.pat.Email) // its invitation mail, sent: River keeps the job a day
				var job int64
				if err := tb.pool.QueryRow(tb.ctx, `UPDATE river_job SET state = 'completed', finalized_at = now()
					WHERE kind = 'notify_invite' RETURNING id`).Scan(&job); err != nil {
					t.Fatal(err)
				}
				hold, err := tb.pool.Begin(tb.ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = hold.Rollback(context.Background()) }()
				if _, err := hold.Exec(tb.ctx, `SELECT 1 FROM river_job WHERE id = $1 FOR UPDATE`, job); err != nil {
					t.Fatal(err)
				}
				acted, erased := make(chan error, 1), make(chan error, 1)
				go func() { erased <- erase() }()
				for e.waiters(t) < 1 {
					time.Sleep(10 * time.Millisecond)
				}
				go func() { acted <- act() }()
				first := false
				for !first && e.waiters(t) < 2 {
					select {
					case err := <-acted:
						if err != nil {
							t.Fatal(err)
						}
						first = true
					case <-time.After(10 * time.Millisecond):
					}
				}
				if err := hold.Commit(tb.ctx); err != nil {
					t.Fatal(err)
				}
				if !first {
					within(t, writer, acted)
				}
				within(t, "the erasure", erased)
				seats, rooms := e.addressesLeft(t)
				if first {
					t.Fatalf("the %s committed while the erasure ran (before it committed); then %d seats and %d rooms kept the address",
						writer, seats, rooms)
				}
				if seats+rooms != 1 {
					t.Fatalf("the %s given after the erasure: %d seats and %d rooms hold the address, want it in one", writer, seats, rooms)
				}
			})
		}
	}
}

// TestErasureWhileTheOtherSideMoves: the inviter's agent makes a move
// that tells pat (their turn: a mail queued, and its line in pat's
// delivery log, with pat's address) while pat's erasure runs (a test
// transaction holds a finished invitation job's row, which the erasure's
// statement waits for after it read the delivery log). The move does not
// wait for erasures (it is an agent's hot path): its line kept the erased
// address, 90 days, even after the mail's job found no address and was
// skipped. The line of a seat that holds no address holds none either: the
// job's record forgets it.
func TestErasureWhileTheOtherSideMoves(t *testing.T) {
	e := setupErasureRace(t)
	tb := e.tb
	n, err := app.NewNotifications(app.NotificationsConfig{Pool: tb.pool, River: e.river, Rooms: e.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: "https://taasky.example"})
	if err != nil {
		t.Fatal(err)
	}
	room := e.open(t, "")
	if _, err := e.rooms.AnswerInvitation(tb.ctx, room.InviteCode, app.PersonAnswer{Verdict: app.VerdictJoin, Email: e.pat.Email}); err != nil {
		t.Fatal(err)
	}
	e.open(t, e.pat.Email) // its invitation mail, sent: River keeps the job a day
	var job int64
	if err := tb.pool.QueryRow(tb.ctx, `UPDATE river_job SET state = 'completed', finalized_at = now()
		WHERE kind = 'notify_invite' RETURNING id`).Scan(&job); err != nil {
		t.Fatal(err)
	}
	hold, err := tb.pool.Begin(tb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(context.Background()) }()
	if _, err := hold.Exec(tb.ctx, `SELECT 1 FROM river_job WHERE id = $1 FOR UPDATE`, job); err != nil {
		t.Fatal(err)
	}
	erased := make(chan error, 1)
	go func() { erased <- tb.accounts.DeleteProfile(context.Background(), e.pat.ID, e.pat.Email) }()
	for e.waiters(t) < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := e.rooms.Propose(tb.ctx, e.agent, room.RoomToken, app.MoveInput{Verdict: "offer",
		Subject: json.RawMessage(`{"meeting_time":{"start":"2027-10-14T10:00:00Z","end":"2027-10-14T10:30:00Z"}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := hold.Commit(tb.ctx); err != nil {
		t.Fatal(err)
	}
	within(t, "the erasure", erased)

	// The mail's job runs, as jobs.EmailWorker does: skipped, recorded.
	var raw []byte
	var d jobs.Delivery
	if err := tb.pool.QueryRow(tb.ctx, `SELECT id, created_at, args FROM river_job WHERE kind = 'notify_email' AND args->>'side' = 'b'`).
		Scan(&d.JobID, &d.JobCreatedAt, &raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d.Notice); err != nil {
		t.Fatal(err)
	}
	d.Attempt, d.Channel = 1, jobs.ChannelEmail
	_, err = n.Notification(tb.ctx, d)
	var skip *jobs.SkipError
	if !errors.As(err, &skip) {
		t.Fatalf("the mail to the erased person: %v, want it skipped", err)
	}
	if err := n.Record(tb.ctx, d, jobs.Outcome{Status: jobs.StatusSkipped, Detail: skip.Reason}); err != nil {
		t.Fatal(err)
	}
	var lines, kept int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*), count(*) FILTER (WHERE lower(recipient) = $1) FROM person_deliveries`,
		e.pat.Email).Scan(&lines, &kept); err != nil || lines == 0 || kept != 0 {
		t.Fatalf("%d of pat's %d delivery log lines keep the erased address (%v)", kept, lines, err)
	}
}
