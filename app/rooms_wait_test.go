package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestReadWaitPollsWhileDeaf: while the process hears no room changes (its
// LISTEN connection lost), a waiting read looks at its room every second
// and still answers with the other side's move. No listener runs here, so
// nothing wakes the wait: only its looking can see the move. Its context
// ends well before the wait does, and a wait that never looked again
// would answer then with the view it had (b's turn).
func TestReadWaitPollsWhileDeaf(t *testing.T) {
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: negotiation.VerdictOffer, Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	changes := rb.rooms.RoomChanges(nil)
	changes.Heard(true)
	changes.Heard(false) // the listener connected, then lost its connection

	ctx, cancel := context.WithTimeout(rb.ctx, MaxWait/2)
	defer cancel()
	type answer struct {
		v   *View
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := rb.rooms.ReadWait(ctx, rb.a, ta, MaxWait)
		done <- answer{v, err}
	}()
	// The wait has begun once it is registered.
	for !rb.waitsOn(ta) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if _, err := rb.rooms.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: negotiation.VerdictCounter, Subject: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	if ctx.Err() != nil || got.v.Turn == nil || *got.v.Turn != "you" || got.v.Round != 2 {
		t.Fatalf("the deaf wait missed b's counter: context %v, turn %v, round %d", ctx.Err(), got.v.Turn, got.v.Round)
	}
}

// waitsOn reports whether a read waits on the room of a's token.
func (rb *roomsBundle) waitsOn(token string) bool {
	v, err := rb.rooms.Read(rb.ctx, rb.a, token)
	if err != nil {
		return false
	}
	w := &rb.rooms.waiters
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.rooms[v.RoomID]) > 0
}

// waitingRead starts a read of a's token waiting for its room's next change
// (ReadWait), once the process listens, and returns when it waits. woken
// is what the read answered, the test failing if what (the event named)
// did not wake it within MaxWait/2.
func (rb *roomsBundle) waitingRead(t *testing.T, token string) (woken func(what string) *View) {
	t.Helper()
	for !rb.rooms.waiters.listening.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	type answer struct {
		v   *View
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := rb.rooms.ReadWait(rb.ctx, rb.a, token, MaxWait)
		done <- answer{v, err}
	}()
	for !rb.waitsOn(token) {
		time.Sleep(time.Millisecond)
	}
	return func(what string) *View {
		t.Helper()
		select {
		case got := <-done:
			if got.err != nil {
				t.Fatal(got.err)
			}
			return got.v
		case <-time.After(MaxWait / 2):
			t.Fatalf("%s did not end the waiting read", what)
		}
		return nil
	}
}

// listeningNotifications is the notification service over rb's rooms, with
// the process listening to the rooms' changes until the test ends.
func (rb *roomsBundle) listeningNotifications(t *testing.T) *Notifications {
	t.Helper()
	svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	lctx, stop := context.WithCancel(rb.ctx)
	t.Cleanup(stop)
	go Listen(lctx, rb.pool.Config().ConnConfig.Copy(), slog.New(slog.DiscardHandler), rb.rooms.RoomChanges(nil))
	return svc
}

// TestWaitingReadsAreCapped: an agent may hold only so many waiting reads
// at once in a process, and an account's agents together only so many
// (RoomsConfig.WaitsPerAgent, WaitsPerAccount): without a cap, one
// account's thousands of waits, woken at each move of their room, held up
// other tenants' calls. A wait past a cap is refused at once with one
// line naming wait_seconds and the cap; a read without a wait, another
// account's waits and the agent's wait once one of its own has ended are
// not held to it.
func TestWaitingReadsAreCapped(t *testing.T) {
	rb := setupRooms(t)
	cfg := rb.cfg
	cfg.WaitsPerAgent, cfg.WaitsPerAccount = 2, 3
	rooms, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close)
	a2, _, err := rb.acc.CreateAgent(rb.ctx, "alpha", "second agent", "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	// Drafts: each opener waits for the join (its next has check_after).
	open := func(agent Agent) (string, int64) {
		o, err := rooms.Open(rb.ctx, agent, OpenInput{Schema: meetingSchema})
		if err != nil {
			t.Fatal(err)
		}
		v, err := rooms.Read(rb.ctx, agent, o.RoomToken)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Next.Waiting() {
			t.Fatalf("a draft's opener has nothing to wait for: %+v", v.Next)
		}
		return o.RoomToken, v.RoomID
	}
	ta, roomA := open(rb.a)
	tb, roomB := open(rb.b)
	waitsOn := func(room int64) int {
		w := &rooms.waiters
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.rooms[room])
	}
	// wait starts a wait that ends with ctx, and returns once it waits.
	var ended sync.WaitGroup
	wait := func(ctx context.Context, agent Agent, token string, room int64) {
		t.Helper()
		before := waitsOn(room)
		errs := make(chan error, 1)
		ended.Add(1)
		go func() {
			defer ended.Done()
			_, err := rooms.ReadWait(ctx, agent, token, MaxWait)
			errs <- err
		}()
		for i := 0; waitsOn(room) == before; i++ {
			select {
			case err := <-errs:
				t.Fatalf("the wait ended at once: %v", err)
			default:
			}
			if i == 10_000 {
				t.Fatal("the wait never began")
			}
			time.Sleep(time.Millisecond)
		}
	}
	refused := func(agent Agent, token, want string) {
		t.Helper()
		// A wait of a second: one not refused answers after it, with no error.
		_, err := rooms.ReadWait(rb.ctx, agent, token, time.Second)
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrInvalid || !strings.HasPrefix(e.Message, want) {
			t.Fatalf("a wait past the cap: got %v, want a refusal starting %q", err, want)
		}
	}

	ctxA, endA := context.WithCancel(rb.ctx)
	ctx2, end2 := context.WithCancel(rb.ctx)
	ctxB, endB := context.WithCancel(rb.ctx)
	defer func() { endA(); end2(); endB(); ended.Wait() }()
	wait(ctxA, rb.a, ta, roomA)
	wait(ctxA, rb.a, ta, roomA)
	refused(rb.a, ta, "wait_seconds: this agent has 2 reads waiting already, the most at once")
	if _, err := rooms.ReadWait(rb.ctx, rb.a, ta, 0); err != nil {
		t.Fatalf("a read without a wait was held to the cap: %v", err)
	}
	// a's colleague's agent reads the same seat (the same human): the
	// account's third wait, then its fourth is refused.
	wait(ctx2, a2, ta, roomA)
	refused(a2, ta, "wait_seconds: this account's agents have 3 reads waiting already, the most at once")
	// Another account is not held up by alpha's waits.
	wait(ctxB, rb.b, tb, roomB)
	if n := waitsOn(roomA); n != 3 {
		t.Fatalf("%d waits on a's room, want 3 (the refused ones registered?)", n)
	}
	// a's waits end: a waits again.
	endA()
	for i := 0; waitsOn(roomA) != 1; i++ {
		if i == 10_000 {
			t.Fatal("a's ended waits were never let go")
		}
		time.Sleep(time.Millisecond)
	}
	ctxA, endA = context.WithCancel(rb.ctx)
	wait(ctxA, rb.a, ta, roomA)
	endA()
	end2()
	endB()
	ended.Wait()
	w := &rooms.waiters
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.rooms) != 0 || len(w.perAgent) != 0 || len(w.perAccount) != 0 {
		t.Fatalf("ended waits still counted: rooms %v, agents %v, accounts %v", w.rooms, w.perAgent, w.perAccount)
	}
}
