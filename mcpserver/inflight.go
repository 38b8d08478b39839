package mcpserver

import (
	"fmt"
	"sync"

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
// A call costs one mutex-guarded map update on the way in and one on the
// way out; no statement.
type inFlight struct {
	max int
	mu  sync.Mutex
	n   map[int64]int
}

// newInFlight is nil when max is 0 (no limit).
func newInFlight(max int) *inFlight {
	if max <= 0 {
		return nil
	}
	return &inFlight{max: max, n: map[int64]int{}}
}

// enter counts a request of account, unless it has max in progress
// already; leave (safe to call more than once) stops counting it.
func (f *inFlight) enter(account int64) (leave func(), ok bool) {
	f.mu.Lock()
	if f.n[account] >= f.max {
		f.mu.Unlock()
		return nil, false
	}
	f.n[account]++
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.n[account]--; f.n[account] <= 0 {
				delete(f.n, account)
			}
			f.mu.Unlock()
		})
	}, true
}

// tooManyAtOnce answers 429 with Retry-After and one line saying the rule
// (a tool call: a tool error saying it, notNow).
func tooManyAtOnce(c *fiber.Ctx, max int) error {
	msg := fmt.Sprintf("too many calls at once: at most %d calls of one account's agents are answered at the same time, and this account has that many in progress; retry after 1 s", max)
	return notNow(c, fiber.StatusTooManyRequests, 1, msg, msg)
}
