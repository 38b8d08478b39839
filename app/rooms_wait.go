package app

import (
	"cmp"
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWait bounds negotiation_read's wait: under the request timeouts of
// common MCP clients (30 s and up) and proxies.
const MaxWait = 25 * time.Second

// DefaultWaitsPerAgent and DefaultWaitsPerAccount are how many reads may
// wait at once in one process (ReadWait), for one agent and for all the
// agents of one account (RoomsConfig.WaitsPerAgent, WaitsPerAccount). A
// wait costs nothing while it waits, but every change of its room wakes
// it to read the room again: without a cap, the rate limit alone let one
// agent hold about 250 waits (10 calls a second for 25 s) and an account's
// 100 agents 25,000, whose wake-ups at each move of their room held other
// tenants' calls up for most of a second. An agent waits on one room at a
// time as a rule; 20 leaves room for one that follows many.
const (
	DefaultWaitsPerAgent   = 20
	DefaultWaitsPerAccount = 200
)

// WaitingKey is the context key (a Fiber local, which a request's context
// reads through) of a func() <-chan struct{} that ReadWait calls once, as
// its read starts waiting for the room to change: a door that holds each
// account's calls in progress to a number (mcpserver) stops counting the
// read then, since it holds no pool connection while it waits, and its
// wait is held to the caps of waits instead. The channel it returns closes
// when the caller is gone (its client closed the connection: the context
// of a request served through fasthttp does not end then), and the wait
// ends with it; nil: never. Without one nothing is called.
var WaitingKey any = waitingKey{}

type waitingKey struct{}

// pollWhileDeaf is how often a waiting read looks at its room while the
// process does not hear room changes (its LISTEN connection is down).
const pollWhileDeaf = time.Second

// waiters are the reads waiting for their rooms to change in this process.
// Every process hears every room change (LISTEN RoomChannel, RoomChanges),
// so a wait is stateless: it works on whichever node the call reaches.
type waiters struct {
	mu        sync.Mutex
	rooms     map[int64]map[chan struct{}]struct{}
	listening atomic.Bool
	// perAgent and perAccount count the waits of each agent and account,
	// held to the caps (0: the defaults).
	perAgent, perAccount map[int64]int
	agentCap, accountCap int
	ended                atomic.Bool // EndWaits: the process is closing its listener
}

// EndWaits answers every waiting read at once with its room as it is, and
// every later one without waiting: the process is about to close its
// listener, and a read holds its request up to MaxWait (25 s), longer than
// the requests in flight are given to finish (cmd/taasky: 20 s), which cut
// it without an answer. The agent reads again, on a node that stays.
func (s *Rooms) EndWaits() {
	s.waiters.ended.Store(true)
	s.waiters.wake(0)
}

// Waiting is how many reads wait in this process now.
func (s *Rooms) Waiting() int {
	s.waiters.mu.Lock()
	defer s.waiters.mu.Unlock()
	n := 0
	for _, chans := range s.waiters.rooms {
		n += len(chans)
	}
	return n
}

// add registers agent's wait on room; done (called once) removes it. Past the
// agent's or its account's cap it registers nothing and refuses.
func (w *waiters) add(room int64, agent Agent) (ch chan struct{}, done func(), err error) {
	agentCap, accountCap := cmp.Or(w.agentCap, DefaultWaitsPerAgent), cmp.Or(w.accountCap, DefaultWaitsPerAccount)
	w.mu.Lock()
	switch {
	case w.perAgent[agent.ID] >= agentCap:
		w.mu.Unlock()
		return nil, nil, Errorf(ErrInvalid, "wait_seconds: this agent has %d reads waiting already, the most at once; wait on one room at a time (a wait answers when its room changes), or read without wait_seconds", agentCap)
	case w.perAccount[agent.AccountID] >= accountCap:
		w.mu.Unlock()
		return nil, nil, Errorf(ErrInvalid, "wait_seconds: this account's agents have %d reads waiting already, the most at once; read without wait_seconds, or again once one of them has answered", accountCap)
	}
	if w.rooms == nil {
		w.rooms, w.perAgent, w.perAccount = map[int64]map[chan struct{}]struct{}{}, map[int64]int{}, map[int64]int{}
	}
	ch = make(chan struct{}, 1)
	if w.rooms[room] == nil {
		w.rooms[room] = map[chan struct{}]struct{}{}
	}
	w.rooms[room][ch] = struct{}{}
	w.perAgent[agent.ID]++
	w.perAccount[agent.AccountID]++
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.rooms[room], ch)
		if len(w.rooms[room]) == 0 {
			delete(w.rooms, room)
		}
		if w.perAgent[agent.ID]--; w.perAgent[agent.ID] <= 0 {
			delete(w.perAgent, agent.ID)
		}
		if w.perAccount[agent.AccountID]--; w.perAccount[agent.AccountID] <= 0 {
			delete(w.perAccount, agent.AccountID)
		}
	}, nil
}

// wake tells the waits on room (0: on every room) to look again. It never
// blocks: a wait told once already has not looked yet.
func (w *waiters) wake(room int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for id, chans := range w.rooms {
		if room != 0 && id != room {
			continue
		}
		for ch := range chans {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// RoomChanges is the process's Channel of room changes (RoomChannel): it
// wakes the reads waiting on a room (ReadWait) and calls also (the live
// pages' hub; nil: nothing more) with each changed room, and with 0 when
// the listener (re)connects.
func (s *Rooms) RoomChanges(also func(roomID int64)) Channel {
	return Channel{
		Name: RoomChannel,
		Notified: func(payload string) {
			if id, err := strconv.ParseInt(payload, 10, 64); err == nil && id > 0 {
				s.waiters.wake(id)
				if also != nil {
					also(id)
				}
			}
		},
		Heard: func(listening bool) {
			s.waiters.listening.Store(listening)
			if listening {
				s.waiters.wake(0)
				if also != nil {
					also(0)
				}
			}
		},
	}
}

// ReadWait is Read that waits when the side has to (its next has a
// check_after: the other side's move, a human's answer, its own cool-down),
// for at most wait (MaxWait): it answers as soon as what the side sees
// changes, or its cool-down ends, or the wait is over, with the room as it
// then is. A change that leaves a counter held back by a cool-down ending
// within the wait is waited out, so that the answer lets the side counter.
// A side that can act now is answered at once. A wait past the agent's or
// its account's cap of waits in this process (RoomsConfig.WaitsPerAgent,
// WaitsPerAccount) is refused; a read without one is never held to it.
func (s *Rooms) ReadWait(ctx context.Context, agent Agent, roomToken string, wait time.Duration) (*View, error) {
	if wait < 0 || wait > MaxWait {
		return nil, Errorf(ErrInvalid, "wait_seconds: 0 to %d", int(MaxWait/time.Second))
	}
	v, err := s.Read(ctx, agent, roomToken)
	if err != nil || wait == 0 || !v.Next.Waiting() || s.waiters.ended.Load() {
		return v, err
	}
	ch, done, err := s.waiters.add(v.RoomID, agent)
	if err != nil {
		return nil, err
	}
	defer done()
	var gone <-chan struct{}
	if waiting, ok := ctx.Value(waitingKey{}).(func() <-chan struct{}); ok {
		gone = waiting()
	}
	end := time.Now().Add(wait)
	first := waitKey(v)
	// Read again now that the wait is registered: a change between the
	// first read and the registration is not lost.
	for {
		if v, err = s.Read(ctx, agent, roomToken); err != nil {
			return nil, err
		}
		left := time.Until(end)
		coolLeft := time.Duration(-1)
		if v.NextCounterAt != "" {
			coolLeft = v.changesAt.Sub(s.now().Add(v.clockAhead)) // both the database's clock
		}
		if left <= 0 || s.waiters.ended.Load() || (waitKey(v) != first && (coolLeft < 0 || coolLeft > left)) {
			return v, nil
		}
		timeout := left
		if coolLeft >= 0 && coolLeft < timeout {
			timeout = coolLeft + 10*time.Millisecond
		}
		if !s.waiters.listening.Load() && timeout > pollWhileDeaf {
			timeout = pollWhileDeaf
		}
		timer := time.NewTimer(timeout)
		select {
		case <-ctx.Done():
			timer.Stop()
			return v, nil
		case <-gone: // nobody reads the answer
			timer.Stop()
			return v, nil
		case <-ch:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// waitKey is what a waiting side sees of a view, less the advice's
// moment: a wait ends when it changes.
func waitKey(v *View) string {
	b, _ := json.Marshal(struct {
		State         any
		Reason        any
		Round         int
		Turn          *string
		Rounds        int
		Table         *TableView
		Approvals     ApprovalsView
		Pending       *ConfirmationView
		Undelivered   []UndeliveredView
		Verdicts      any
		NextCounterAt string
	}{v.State, v.ClosedReason, v.Round, v.Turn, len(v.Rounds), v.TermsOnTable, v.Approvals, v.PendingConfirmation, v.Undelivered, v.Next.Verdicts, v.NextCounterAt})
	return string(b)
}
