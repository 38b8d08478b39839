package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// roomsBundle is what a rooms test needs: the service on its own database,
// two agents in two accounts, and a clock the test moves.
type roomsBundle struct {
	ctx   context.Context
	pool  *pgxpool.Pool
	rooms *Rooms
	cfg   RoomsConfig // rooms' wiring
	acc   *Accounts
	a, b  Agent
	clock *atomic.Int64 // unix nanoseconds
}

func (rb *roomsBundle) advance(d time.Duration) { rb.clock.Add(int64(d)) }

func setupRooms(t *testing.T) *roomsBundle { return setupRoomsB(t) }

func setupRoomsB(t testing.TB) *roomsBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t)
	// An insert-only client, announcing inserts as production does: River
	// sends at most one announcement per FetchCooldown, which the workers
	// (setupNotifyWith) wait for.
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{FetchCooldown: jobs.FetchCooldown})
	if err != nil {
		t.Fatal(err)
	}
	clock := &atomic.Int64{}
	clock.Store(time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC).UnixNano())
	acc := NewAccounts(pool)
	cfg := RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: "http://127.0.0.1:8080", Accounts: acc, Receipts: testReceiptKeys(t),
		Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }}
	rooms, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	rb := &roomsBundle{ctx: ctx, pool: pool, rooms: rooms, cfg: cfg, acc: acc, clock: clock}
	for i, slug := range []string{"alpha", "beta"} {
		email := slug + "@example.test"
		if _, err := acc.CreateAccount(ctx, slug, strings.ToUpper(slug), email); err != nil {
			t.Fatal(err)
		}
		ag, _, err := acc.CreateAgent(ctx, slug, "agent", email)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			rb.a = ag
		} else {
			rb.b = ag
		}
	}
	return rb
}

// confirm has the side's human answer its pending confirmation yes.
func (rb *roomsBundle) confirm(t *testing.T, agent Agent, token string, cv *ConfirmationView) *Decision {
	t.Helper()
	v, err := rb.rooms.Read(rb.ctx, agent, token)
	if err != nil {
		t.Fatal(err)
	}
	d, err := rb.rooms.DecideAsOwner(rb.ctx, agent.OwnerUserID, v.RoomID, cv.ID, cv.SubjectHash, true)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (rb *roomsBundle) checkClean(t *testing.T) {
	t.Helper()
	rep, err := rb.rooms.Check(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Differences) > 0 {
		t.Fatalf("check: %d of %d rooms differ from their replay:\n%s", len(rep.Differences), rep.Rooms, strings.Join(rep.Differences, "\n"))
	}
	// The ranks the moves wrote (from the rooms as the moves left them) are
	// the ranks of the tables: computing them again changes none.
	tx, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(rb.ctx)
	tag, err := tx.Exec(rb.ctx, rerank(`rooms`, pendingInTable))
	if err != nil {
		t.Fatal(err)
	}
	if n := tag.RowsAffected(); n != 0 {
		t.Errorf("check: %d parties' ranks differ from their rooms' and confirmations'", n)
	}
}

type moveVectors struct {
	Schema json.RawMessage            `json:"schema"`
	Terms  map[string]json.RawMessage `json:"terms"`
	Cases  []struct {
		Name  string `json:"name"`
		Start string `json:"start"`
		Steps []struct {
			Actor   negotiation.Side    `json:"actor"`
			Verdict negotiation.Verdict `json:"verdict"`
			Terms   string              `json:"terms"`
			Subject json.RawMessage     `json:"subject"`
			Approve string              `json:"approve"`
			Join    string              `json:"join"`
			Refused *string             `json:"refused"`
			Room    *struct {
				State negotiation.State `json:"state"`
				Round *int              `json:"round"`
			} `json:"room"`
		} `json:"steps"`
	} `json:"cases"`
}

// TestMovesVectorsThroughTheService plays vectors/moves.json through the
// service and the database, the humans confirming as owners; then the
// consistency checker finds every room equal to the replay of its log.
func TestMovesVectorsThroughTheService(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	b, err := os.ReadFile(filepath.Join("..", "vectors", "moves.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f moveVectors
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Cases {
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: f.Schema, Title: c.Name[:min(len(c.Name), 100)]})
		if err != nil {
			t.Fatal(err)
		}
		tokens := map[negotiation.Side]string{negotiation.SideA: open.RoomToken}
		agents := map[negotiation.Side]Agent{negotiation.SideA: rb.a, negotiation.SideB: rb.b}
		join := func() error {
			j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteURL, Schema: f.Schema})
			if err == nil {
				tokens[negotiation.SideB] = j.RoomToken
			}
			return err
		}
		if c.Start != "draft" {
			if err := join(); err != nil {
				t.Fatal(err)
			}
		}
		for i, st := range c.Steps {
			rb.advance(time.Minute)
			where := fmt.Sprintf("%s: step %d", c.Name, i)
			var state negotiation.State
			var round int
			var err error
			if st.Join == "" && tokens[st.Actor] == "" {
				// b has no seat before it joins: the service has nothing
				// to move with (the vector's refusal is the protocol's).
				if _, err := rb.rooms.Propose(rb.ctx, agents[st.Actor], "", MoveInput{Verdict: st.Verdict}); ErrorCodeOf(err) != ErrInvalid {
					t.Fatalf("%s: a move without a seat: %v", where, err)
				}
				continue
			}
			switch {
			case st.Join != "":
				err = join()
			case st.Verdict == negotiation.VerdictApprove || st.Verdict == negotiation.VerdictReject || st.Verdict == negotiation.VerdictCancel:
				hash := negotiation.SubjectHash(st.Approve)
				if st.Approve == "on_table" {
					v, _ := rb.rooms.Read(rb.ctx, agents[st.Actor], tokens[st.Actor])
					hash = v.TermsOnTable.Options[0].SubjectHash
				}
				var cv *ConfirmationView
				cv, _, err = rb.rooms.RequestConfirmation(rb.ctx, agents[st.Actor], tokens[st.Actor], st.Verdict, hash)
				if err == nil {
					if d := rb.confirm(t, agents[st.Actor], tokens[st.Actor], cv); d.Result != negotiation.ResultApplied {
						t.Fatalf("%s: confirmation %s (%s)", where, d.Result, d.Why)
					}
				}
			default:
				subject := st.Subject
				if st.Terms != "" {
					subject = f.Terms[st.Terms]
				}
				_, err = rb.rooms.Propose(rb.ctx, agents[st.Actor], tokens[st.Actor], MoveInput{Verdict: st.Verdict, Subject: subject})
			}
			if st.Refused != nil {
				if err == nil || err.Error() != *st.Refused {
					t.Fatalf("%s: error %v, want %q", where, err, *st.Refused)
				}
				if ErrorCodeOf(err) == ErrInternal {
					t.Fatalf("%s: a refusal came out as an internal error", where)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			v, err := rb.rooms.Read(rb.ctx, rb.a, tokens[negotiation.SideA])
			if err != nil {
				t.Fatal(err)
			}
			state, round = v.State, v.Round
			if st.Room != nil && (state != st.Room.State || (st.Room.Round != nil && round != *st.Room.Round)) {
				t.Fatalf("%s: room %s round %d, want %+v", where, state, round, *st.Room)
			}
		}
	}
	rb.checkClean(t)
}

var meetingSchema = json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true}}`)

func meeting(hour int, fee string) json.RawMessage {
	s := fmt.Sprintf(`{"meeting_time":{"start":"2026-10-14T%02d:00:00Z","end":"2026-10-14T%02d:30:00Z"}`, hour, hour)
	if fee != "" {
		s += `,"fee":{"amount":"` + fee + `","currency":"EUR"}`
	}
	return json.RawMessage(s + "}")
}

// openJoined opens a room by a and joins it by b.
func (rb *roomsBundle) openJoined(t *testing.T, in OpenInput, joinLimits string) (string, string) {
	t.Helper()
	if in.Schema == nil && in.Slots == nil {
		in.Schema = meetingSchema
	}
	open, err := rb.rooms.Open(rb.ctx, rb.a, in)
	if err != nil {
		t.Fatal(err)
	}
	j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(joinLimits)})
	if err != nil {
		t.Fatal(err)
	}
	return open.RoomToken, j.RoomToken
}

func TestRetriedMovesAreAnsweredNotReplayed(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	first, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	// The same move again, written differently (same canonical terms).
	again, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer",
		Subject: json.RawMessage(`{"meeting_time":{"end":"2026-10-14T12:30:00+02:00","start":"2026-10-14T12:00:00+02:00"}}`)})
	if err != nil {
		t.Fatalf("a retried offer was refused: %v", err)
	}
	if again.Round != first.Round || len(again.Rounds) != 1 {
		t.Fatalf("the retry was applied again: round %d, %d rounds", again.Round, len(again.Rounds))
	}
	// A different move is still refused.
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(11, "")}); err == nil || err.Error() != "not your turn" {
		t.Fatalf("a different move: %v", err)
	}
	// A retried confirmation request returns the pending one.
	h := first.TermsOnTable.Options[0].SubjectHash
	c1, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", h)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", h)
	if err != nil || c2.ID != c1.ID {
		t.Fatalf("retried request: %v, %v vs %v", err, c2, c1)
	}
	rb.checkClean(t)
}

func TestTenantScoping(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	// b's agent holding a's token (stolen) finds nothing: tokens are scoped by account.
	if _, err := rb.rooms.Read(rb.ctx, rb.b, ta); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("read with another account's token: %v", err)
	}
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, tb, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("move with another account's token: %v", err)
	}
	if _, _, err := rb.rooms.List(rb.ctx, rb.b, []string{ta}, ""); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("list with another account's token: %v", err)
	}
	// A human who is not the party's owner cannot confirm for it.
	v, _ := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", v.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.DecideAsOwner(rb.ctx, rb.a.OwnerUserID, v.RoomID, cv.ID, cv.SubjectHash, true); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("the other side's human confirmed: %v", err)
	}
	// An answer bound to other terms is refused.
	if _, err := rb.rooms.DecideAsOwner(rb.ctx, rb.b.OwnerUserID, v.RoomID, cv.ID, "sha256:00", true); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("an answer for other terms: %v", err)
	}
	// Lists: each agent sees its own rooms only.
	la, _, err := rb.rooms.List(rb.ctx, rb.a, nil, "")
	if err != nil || len(la) != 1 || la[0].RoomID != v.RoomID {
		t.Fatalf("list: %v %v", la, err)
	}
}

func TestLimitsNeverLeaveTheStoreUnencrypted(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{Limits: json.RawMessage(`{"fee":{"max":{"amount":"4321.00","currency":"EUR"}}}`)},
		`{"fee":{"min":{"amount":"8765.00","currency":"EUR"}}}`)
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "4000")})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(v.NoDealPossible, []string{"fee"}) {
		t.Fatalf("no deal: %v", v.NoDealPossible)
	}
	vb, _ := rb.rooms.Read(rb.ctx, rb.b, tb)
	if got := vb.TermsOnTable.Options[0].OutsideYourLimits; len(got) != 1 || got[0].Bound != "min" {
		t.Fatalf("b's flags: %v", got)
	}
	for _, secret := range []string{"4321", "8765"} {
		var n int
		err := rb.pool.QueryRow(rb.ctx, `SELECT
			(SELECT count(*) FROM rooms WHERE snapshot LIKE '%' || $1 || '%') +
			(SELECT count(*) FROM room_events WHERE event LIKE '%' || $1 || '%') +
			(SELECT count(*) FROM parties WHERE position(convert_to($1, 'UTF8') in limits_enc) > 0) +
			(SELECT count(*) FROM river_job WHERE args::text LIKE '%' || $1 || '%')`, secret).Scan(&n)
		if err != nil || n != 0 {
			t.Fatalf("limit %s found in the store %d times (%v)", secret, n, err)
		}
		for _, view := range []*View{v, vb} {
			b, _ := json.Marshal(view)
			if bytes.Contains(b, []byte(secret)) {
				t.Fatalf("limit %s in a view: %s", secret, b)
			}
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

// TestRacingMoves has the two sides race on many rooms: double approve,
// approve against counter, cancel against approve, a human's confirm
// against a counter. Whatever wins, no move is applied twice and every
// room equals the replay of its log.
func TestRacingMoves(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 12
	var wg sync.WaitGroup
	errs := make(chan error, rooms*8)
	for i := range rooms {
		ta, tb := rb.openJoined(t, OpenInput{}, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(8+i%8, "")})
			if err != nil {
				errs <- err
				return
			}
			h := v.TermsOnTable.Options[0].SubjectHash
			cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.b, tb, "approve", h)
			if err != nil {
				errs <- err
				return
			}
			var race sync.WaitGroup
			race.Add(3)
			go func() { // b's human confirms
				defer race.Done()
				_, err := rb.rooms.DecideAsOwner(rb.ctx, rb.b.OwnerUserID, v.RoomID, cv.ID, h, true)
				expectRefusalOrNil(errs, err)
			}()
			go func() { // b's agent counters at the same time
				defer race.Done()
				_, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(18, "")})
				expectRefusalOrNil(errs, err)
			}()
			go func() { // a asks to cancel
				defer race.Done()
				_, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, "cancel", "")
				expectRefusalOrNil(errs, err)
			}()
			race.Wait()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rb.checkClean(t)
	// No confirmation was applied to other terms than its own, and none twice.
	var bad int
	err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM confirmations c JOIN room_events e ON e.room_id = c.room_id
		AND e.kind = 'decide' AND e.event::jsonb->>'confirmation_id' = c.id
		GROUP BY c.room_id, c.id HAVING count(*) > 1`).Scan(&bad)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d confirmations decided twice", bad)
	}
}

func expectRefusalOrNil(errs chan<- error, err error) {
	if err != nil && ErrorCodeOf(err) == ErrInternal {
		errs <- err
	}
}

// A move that waited for the room's lock while another move committed must
// answer with the room after both: its view's history includes the move it
// waited for (the statement that took the lock read the log from before).
func TestAMoveThatWaitedSeesTheMoveBeforeIt(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 30
	var wg sync.WaitGroup
	views := make(chan *View, 2*rooms)
	errs := make(chan error, 2*rooms)
	for i := range rooms {
		ta, tb := rb.openJoined(t, OpenInput{}, "")
		if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(8+i%8, "")}); err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() { // b counters
			defer wg.Done()
			v, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(18, "")})
			if err != nil {
				errs <- err
				return
			}
			views <- v
		}()
		go func() { // a asks to cancel at the same time: allowed on any turn
			defer wg.Done()
			_, v, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, "cancel", "")
			if err != nil {
				errs <- err
				return
			}
			views <- v
		}()
	}
	wg.Wait()
	close(views)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for v := range views {
		proposes := 0
		for _, r := range v.Rounds {
			if r.Verdict == "offer" || r.Verdict == "counter" {
				proposes++
			}
		}
		if proposes != v.Round {
			t.Errorf("room %d: the view says round %d but its history has %d offers and counters", v.RoomID, v.Round, proposes)
		}
	}
	rb.checkClean(t)
}
