package app

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// capState counts what a creation writes, to show a refused one wrote
// nothing.
func (rb *roomsBundle) capState(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"agents", "agent_keys", "audit_log", "rooms", "parties", "room_events", "river_job"} {
		var n int
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// refusedUnchanged checks that err is the refusal want (its code, its
// whole message, its catalog key) and that nothing was written.
func (rb *roomsBundle) refusedUnchanged(t *testing.T, before map[string]int, err error, key, want string) {
	t.Helper()
	if ErrorCodeOf(err) != ErrConflict || ErrorMessageOf(err) != want {
		t.Fatalf("past the cap: %v (%s)\nwant %s", err, ErrorCodeOf(err), want)
	}
	if ae, ok := errors.AsType[*Error](err); !ok || ae.Words.Key != key {
		t.Errorf("refusal's words: %+v, want key %s", ae, key)
	}
	if after := rb.capState(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("a refused creation wrote: %v, before %v", after, before)
	}
}

// TestAgentsPerAccountCap: an account may have at most the cap of agents
// that can act. Past it a creation is refused with the field, the number
// and the variable, and nothing is written; an agent whose keys are all
// revoked no longer counts (and a key for it counts it again); another
// account goes on.
func TestAgentsPerAccountCap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rb.acc.SetCaps(Caps{AgentsPerAccount: 2})
	second, key2, err := rb.acc.CreateAgent(rb.ctx, "alpha", "second", "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	const want = "agents: this account has as many agents as it may have (2, AGENTS_PER_ACCOUNT_MAX); nothing was created. " +
		"Revoke every key of one it no longer uses, or disconnect it, first"
	before := rb.capState(t)
	_, _, err = rb.acc.CreateAgent(rb.ctx, "alpha", "third", "alpha@example.test")
	rb.refusedUnchanged(t, before, err, "cap9_agents", want)

	if _, _, err := rb.acc.CreateAgent(rb.ctx, "beta", "second", "beta@example.test"); err != nil {
		t.Errorf("another account: %v", err)
	}
	if err := rb.acc.RevokeAgentKey(rb.ctx, "alpha", key2.ID); err != nil {
		t.Fatal(err)
	}
	third, _, err := rb.acc.CreateAgent(rb.ctx, "alpha", "third", "alpha@example.test")
	if err != nil {
		t.Fatalf("with an agent's keys all revoked: %v", err)
	}
	before = rb.capState(t)
	_, err = rb.acc.IssueAgentKey(rb.ctx, "alpha", second.ID)
	rb.refusedUnchanged(t, before, err, "cap9_agents", want)
	if _, err := rb.acc.IssueAgentKey(rb.ctx, "alpha", third.ID); err != nil {
		t.Errorf("a key for an agent that counts already: %v", err)
	}
}

// TestKeysPerAgentCap: an agent may have at most the cap of unrevoked
// keys; a revoked one frees its place.
func TestKeysPerAgentCap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rb.acc.SetCaps(Caps{KeysPerAgent: 2})
	k, err := rb.acc.IssueAgentKey(rb.ctx, "alpha", rb.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	before := rb.capState(t)
	_, err = rb.acc.IssueAgentKey(rb.ctx, "alpha", rb.a.ID)
	rb.refusedUnchanged(t, before, err, "cap9_keys",
		"keys: agent has as many keys as an agent may have (2, KEYS_PER_AGENT_MAX); nothing was issued. Revoke one first")
	if err := rb.acc.RevokeAgentKey(rb.ctx, "alpha", k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.acc.IssueAgentKey(rb.ctx, "alpha", rb.a.ID); err != nil {
		t.Errorf("after a revocation: %v", err)
	}
}

// TestOpenRoomsPerAccountCap: an account may have at most the cap of rooms
// not ended. Past it negotiation_open is refused and opens nothing (no
// room, party, event or job); a room that ends frees its place; another
// account goes on.
func TestOpenRoomsPerAccountCap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rb.rooms.openCap = 2
	open := func(a Agent) error {
		_, err := rb.rooms.Open(rb.ctx, a, OpenInput{Schema: meetingSchema})
		return err
	}
	for range 2 {
		if err := open(rb.a); err != nil {
			t.Fatal(err)
		}
	}
	before := rb.capState(t)
	rb.refusedUnchanged(t, before, open(rb.a), "cap9_open_rooms",
		"rooms: this account has as many open rooms as it may have (2, OPEN_ROOMS_PER_ACCOUNT_MAX); nothing was opened. Cancel one it no longer needs, or wait for one to end")
	_, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, InviteEmail: "pat@example.test"})
	rb.refusedUnchanged(t, before, err, "cap9_open_rooms",
		"rooms: this account has as many open rooms as it may have (2, OPEN_ROOMS_PER_ACCOUNT_MAX); nothing was opened. Cancel one it no longer needs, or wait for one to end")
	if err := open(rb.b); err != nil {
		t.Errorf("another account: %v", err)
	}
	rb.advance(73 * time.Hour) // the invitations expire: the rooms end
	rb.sweepRooms(t, 3)
	if err := open(rb.a); err != nil {
		t.Errorf("after the rooms ended: %v", err)
	}
}

// waitLocked waits until n statements of the test's database wait for a
// lock (the creations queued behind the test's own lock), or until done
// is closed (creations that did not wait: the test then fails on what
// they did).
func (rb *roomsBundle) waitLocked(t *testing.T, n int, done <-chan struct{}) {
	t.Helper()
	for {
		waiting, err := pgtest.LockWaits(rb.ctx, rb.pool)
		if err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		select {
		case <-done:
			return
		case <-time.After(5 * time.Millisecond): // polling for the signal, not waiting for it to happen
		}
	}
}

// race runs create twice at once, both started while the test holds the
// account's row, and returns their errors once the row is let go.
func (rb *roomsBundle) race(t *testing.T, accountID int64, create func() error) [2]error {
	t.Helper()
	tx, err := rb.pool.Begin(rb.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(rb.ctx) }()
	if _, err := tx.Exec(rb.ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR NO KEY UPDATE`, accountID); err != nil {
		t.Fatal(err)
	}
	var errs [2]error
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = create() })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	rb.waitLocked(t, 2, done)
	if err := tx.Rollback(rb.ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	return errs
}

// oneRefused checks that of two creations at once for the last place, one
// went through and the other was refused with key.
func oneRefused(t *testing.T, errs [2]error, key string) {
	t.Helper()
	var refused, ok int
	for _, err := range errs {
		ae, isErr := errors.AsType[*Error](err)
		switch {
		case err == nil:
			ok++
		case isErr && ae.Words.Key == key:
			refused++
		default:
			t.Errorf("unexpected: %v", err)
		}
	}
	if ok != 1 || refused != 1 {
		t.Errorf("two creations at once for the last place: %d went through, %d refused (%v)", ok, refused, errs)
	}
}

// TestCapsAreRaceSafe: two creations at once cannot both take the last
// place: the second counts the first once it has the account's row.
func TestCapsAreRaceSafe(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rb.rooms.openCap = 1
	oneRefused(t, rb.race(t, rb.a.AccountID, func() error {
		_, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
		return err
	}), "cap9_open_rooms")

	rb.acc.SetCaps(Caps{AgentsPerAccount: 2, KeysPerAgent: 2})
	var n int
	var mu sync.Mutex
	oneRefused(t, rb.race(t, rb.a.AccountID, func() error {
		mu.Lock()
		n++
		name := fmt.Sprintf("racer %d", n)
		mu.Unlock()
		_, _, err := rb.acc.CreateAgent(rb.ctx, "alpha", name, "alpha@example.test")
		return err
	}), "cap9_agents")
	oneRefused(t, rb.race(t, rb.a.AccountID, func() error {
		_, err := rb.acc.IssueAgentKey(rb.ctx, "alpha", rb.a.ID)
		return err
	}), "cap9_keys")
}

// TestOpenStatementsWithTheCap: the open rooms' cap rides on the open's
// own INSERT: an open sends as many statements, in as many round trips,
// with the cap as without it.
func TestOpenStatementsWithTheCap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	traced, st := rb.tracedRooms(t)
	count := func(openCap int) (n, trips int) {
		t.Helper()
		traced.openCap = openCap
		traced.announcer.flush()
		st.take()
		if _, err := traced.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema}); err != nil {
			t.Fatal(err)
		}
		traced.announcer.flush()
		sql, trips := ownStatements(st.take())
		return len(sql), trips
	}
	count(0) // the connection's statements prepared
	n0, trips0 := count(0)
	n1, trips1 := count(100)
	if n1 != n0 || trips1 != trips0 {
		t.Errorf("an open with the cap: %d statements in %d round trips; without: %d in %d", n1, trips1, n0, trips0)
	}
	t.Logf("an open: %d statements in %d round trips, with the cap or without", n1, trips1)
}
