package trust

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// lane is a room two agents counter in, turn by turn, each on an MCP
// session of its own, until a move of theirs fails.
type lane struct {
	a, b       *tenant
	ta, tb     string
	id         int64
	sa, sb     *mcp.ClientSession
	otherRound int // the last round a move of the other account's was acknowledged at
}

// TestDeleteUnderLoad: while the agents of "other" keep countering in
// rooms with the account being deleted ("doomed") and in rooms with a
// third account, doomed's owner deletes it. Afterwards every room of
// other's is still there and readable by it, every move of other's that
// was acknowledged is in its room, the rooms with doomed are closed with
// account_deleted, the agreed ones are as they were, the rooms with the
// third account go on, doomed's key is refused, and taasky check passes.
func TestDeleteUnderLoad(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 3})
	doomed, other, third := s.tenants[0], s.tenants[1], s.tenants[2]
	n := size(3, 20) // lanes per pair of accounts

	agreed := map[string]string{} // other's token → its read before, as JSON
	for i := range 2 {
		opener, joiner := doomed, other
		if i == 1 {
			opener, joiner = other, doomed
		}
		ta, tb, id := s.pair(opener, joiner, raceSchema, nil, nil, feeTerms(100+i))
		for _, side := range []struct {
			tn  *tenant
			tok string
		}{{joiner, tb}, {opener, ta}} {
			v, err := s.rooms.Read(s.ctx, side.tn.agent, side.tok)
			if err != nil {
				t.Fatal(err)
			}
			cv, _, err := s.rooms.RequestConfirmation(s.ctx, side.tn.agent, side.tok, negotiation.VerdictApprove, v.TermsOnTable.Options[0].SubjectHash)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := side.tn.decide(id, cv.ID, cv.SubjectHash, true); err != nil {
				t.Fatal(err)
			}
		}
		tok := tb
		if opener == other {
			tok = ta
		}
		v, err := s.rooms.Read(s.ctx, other.agent, tok)
		if err != nil || v.State != negotiation.StateAgreed {
			t.Fatalf("agreed room: %+v %v", v, err)
		}
		agreed[tok] = mustJSON(t, v)
	}

	var lanes []*lane
	for i := range 2 * n {
		a, b := doomed, other
		switch {
		case i >= n:
			a, b = other, third
		case i%2 == 1:
			a, b = other, doomed
		}
		ta, tb, id := s.pair(a, b, raceSchema, nil, nil, feeTerms(1000*i))
		lanes = append(lanes, &lane{a: a, b: b, ta: ta, tb: tb, id: id, sa: a.connect(a.key), sb: b.connect(b.key)})
	}
	roomsOf := func(tn *tenant) int {
		return s.count(`SELECT count(*) FROM parties WHERE account_id = $1`, tn.agent.AccountID)
	}
	otherRooms := roomsOf(other)

	// Each lane counters, b first (a's offer is on the table), until a
	// move fails: other's moves must be answered or refused with a
	// reason, never fail inside.
	var moves atomic.Int64
	progress := make(chan struct{}, 1) // a move was made
	waitMoves := func(what string, n int64) {
		t.Helper()
		timeout := time.After(2 * time.Minute)
		for moves.Load() < n {
			select {
			case <-progress:
			case <-timeout:
				t.Fatalf("%s: %d moves, want %d", what, moves.Load(), n)
			}
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for li, ln := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for turn := 0; ; turn++ {
				select {
				case <-stop:
					return
				default:
				}
				tn, sess, tok := ln.b, ln.sb, ln.tb
				if turn%2 == 1 {
					tn, sess, tok = ln.a, ln.sa, ln.ta
				}
				r, err := callOn(s.ctx, sess, "negotiation_propose", map[string]any{"room_token": tok, "verdict": "counter",
					"subject": feeTerms(1000*li + turn + 1)})
				switch {
				case tn == other && err != nil:
					t.Errorf("other's move in room %d: transport: %v", ln.id, err)
					return
				case tn == other && strings.Contains(r.err, "internal"):
					t.Errorf("other's move in room %d: %s", ln.id, r.err)
					return
				case err != nil || r.err != "":
					return // doomed is gone, or its room is closed
				}
				if tn == other {
					room, _ := r.out["room"].(map[string]any)
					round, _ := room["round"].(float64)
					ln.otherRound = int(round)
				}
				moves.Add(1)
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	waitMoves("the lanes before the deletion", int64(4*len(lanes)))
	began := moves.Load()
	done, err := s.rooms.DeleteAccount(s.ctx, doomed.user.ID, doomed.slug, doomed.slug)
	if err != nil {
		t.Fatal(err)
	}
	// Its job's work (River runs it in the service), while the lanes move.
	for finished, runs := false, 0; !finished; runs++ {
		if runs == 20 {
			t.Fatal("the deletion did not finish in 20 runs of its job")
		}
		if finished, err = s.rooms.FinishAccountDeletion(s.ctx, done.AccountID, time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	after := moves.Load()
	waitMoves("the third account's lanes after the deletion", after+int64(4*n))
	close(stop)
	wg.Wait()

	if got := roomsOf(other); got != otherRooms {
		t.Errorf("other sat in %d rooms before the deletion, %d after", otherRooms, got)
	}
	for _, ln := range lanes {
		tok := ln.ta
		if ln.b == other {
			tok = ln.tb
		}
		v, err := s.rooms.Read(s.ctx, other.agent, tok)
		if err != nil {
			t.Errorf("other reads room %d: %v", ln.id, err)
			continue
		}
		if ln.otherRound > 0 && !hasRound(v, ln.otherRound) {
			t.Errorf("room %d lost other's acknowledged move of round %d (round %d now)", ln.id, ln.otherRound, v.Round)
		}
		withDoomed := ln.a == doomed || ln.b == doomed
		if withDoomed && (v.State != negotiation.StateClosed || v.ClosedReason != negotiation.ClosedAccountDeleted) {
			t.Errorf("room %d with the deleted account: %s %s", ln.id, v.State, v.ClosedReason)
		}
		if !withDoomed && v.State != negotiation.StateAwaiting {
			t.Errorf("room %d with the third account: %s %s", ln.id, v.State, v.ClosedReason)
		}
	}
	for tok, before := range agreed {
		v, err := s.rooms.Read(s.ctx, other.agent, tok)
		if err != nil || mustJSON(t, v) != before {
			t.Errorf("an agreed room changed: %v\n%s\n%s", err, before, mustJSON(t, v))
		}
	}
	if _, err := s.accounts.AuthenticateAgentKey(s.ctx, doomed.key); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the deleted account's key: %v", err)
	}
	rep := s.check()
	t.Logf("deleted under load: %d lanes, %d moves (%d while the deletion ran, %d after), %d rooms checked",
		len(lanes), moves.Load(), after-began, moves.Load()-after, rep.Rooms)
}

func hasRound(v *app.View, round int) bool {
	for _, r := range v.Rounds {
		if r.Round == round && r.By == "you" {
			return true
		}
	}
	return false
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// finishDeletions runs the deletion job's work (the service's River
// workers run it) for every account being deleted, to the end.
func (s *stack) finishDeletions() {
	s.t.Helper()
	rows, err := s.pool.Query(s.ctx, `SELECT id FROM accounts WHERE deleting_at IS NOT NULL`)
	if err != nil {
		s.t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		s.t.Fatal(err)
	}
	for _, id := range ids {
		for finished, runs := false, 0; !finished; runs++ {
			if runs == 20 {
				s.t.Fatalf("the deletion of account %d did not finish in 20 runs of its job", id)
			}
			if finished, err = s.rooms.FinishAccountDeletion(s.ctx, id, time.Now().Add(time.Minute)); err != nil {
				s.t.Fatal(err)
			}
		}
	}
}
