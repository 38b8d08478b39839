package mcpserver

import (
	"fmt"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// inFlight holds each account's requests in progress on /mcp in this
// process to max. Tenants share one process and its pool of database
// connections: the rate limit is per agent, and an account's 100 agents
// within theirs (about 1,000 calls a second) held every pool connection,
// so that another tenant's move waited for one (its p99 went from 19 ms
// to 340 ms). Held to max, an account's calls past it are refused at
// once, before any work, and its agents retry; other accounts' calls find
// a connection. A read waiting for its room (wait_seconds) holds no
// connection while it waits and stops counting then (app.WaitingKey);
// the waits have caps of their own.
//
// A call counts by its size: a request body of MaxBody (1 MB) counts as
// max calls, one of MaxBody/max (100 KB with the default 10) or less as
// one (callWeight). The work of a call grows with its terms (read,
// validated, made canonical, hashed, logged, sealed in the room's
// snapshot, and sent back in its answer): one account's agents countering
// with terms of the largest size in 10 rooms at once, within their rate
// limits, kept both cores busy and another tenant's move went from 6 ms to
// 500 ms (p50). Counted so, an account has at most about 1 MB of calls in
// progress at once, and ordinary calls count as before.
//
// A call that counts as more than one and is refused holds its weight
// for holdFor: while it holds, a lighter call of the account is let in
// only with room left for it, so that the account's calls in progress
// drain and the large call, sent again after Retry-After, gets in.
// Without it a call of 1 MB, which needs all of max free, was refused
// for as long as the account's agents kept one ordinary call in
// progress, for ever under a steady stream of them.
//
// A call costs one mutex-guarded map update on the way in and one on the
// way out; no statement.
type inFlight struct {
	max  int
	mu   sync.Mutex
	n    map[int64]int
	held map[int64]heldRoom
	now  func() time.Time
}

// heldRoom is the weight a refused call of an account holds, until when.
type heldRoom struct {
	weight int
	until  time.Time
}

// holdFor is how long a refused large call holds its room: its Retry-After
// (1 s) and as long again for the client to send it.
const holdFor = 2 * time.Second

// newInFlight is nil when max is 0 (no limit).
func newInFlight(max int) *inFlight {
	if max <= 0 {
		return nil
	}
	return &inFlight{max: max, n: map[int64]int{}, held: map[int64]heldRoom{}, now: time.Now}
}

// callWeight is how many calls a request body of size bytes counts as:
// one per MaxBody/max bytes begun, from 1 to max.
func (f *inFlight) callWeight(size int) int {
	return min(max(1, (size*f.max+MaxBody-1)/MaxBody), f.max)
}

// enter counts a request of account with a body of size bytes, as
// callWeight calls, unless that would take the account past max in
// progress; leave (safe to call more than once) stops counting it.
func (f *inFlight) enter(account int64, size int) (leave func(), ok bool) {
	w := f.callWeight(size)
	f.mu.Lock()
	reserved := 0
	h, held := f.held[account]
	if held && !f.now().Before(h.until) {
		delete(f.held, account)
		held = false
	}
	if held && w < h.weight {
		reserved = h.weight // a lighter call leaves room for the held one
	}
	if f.n[account]+w+reserved > f.max {
		if w > 1 && (!held || w >= h.weight) {
			f.held[account] = heldRoom{weight: w, until: f.now().Add(holdFor)}
		}
		f.mu.Unlock()
		return nil, false
	}
	if held && w >= h.weight {
		delete(f.held, account) // the held call (or one as large) is in
	}
	f.n[account] += w
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.n[account] -= w; f.n[account] <= 0 {
				delete(f.n, account)
				if h, ok := f.held[account]; ok && !f.now().Before(h.until) {
					delete(f.held, account) // a lapsed hold is not kept for ever
				}
			}
			f.mu.Unlock()
		})
	}, true
}

// tooManyAtOnce answers 429 with Retry-After and one line saying the rule
// (a tool call: a tool error saying it, notNow).
func tooManyAtOnce(c *fiber.Ctx, max int) error {
	calls := "calls of one account's agents are answered"
	if max == 1 { // MCP_ACCOUNT_CONCURRENCY=1
		calls = "call of one account's agents is answered"
	}
	msg := fmt.Sprintf("too many calls at once: at most %d %s at the same time (a call counts as one per %d KB of its request), and this account's calls in progress (or a larger one waiting for room) leave none for this one; retry after 1 s", max, calls, MaxBody/max/1024)
	return notNow(c, fiber.StatusTooManyRequests, 1, msg, msg)
}
