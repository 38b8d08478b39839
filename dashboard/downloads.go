package dashboard

import (
	"strconv"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// downloadRetry is the Retry-After, in seconds, of a download refused
// while the same one is being written: an export of an account at its
// rooms cap takes tens of seconds.
const downloadRetry = 60

// oneAtATime lets each signed-in person have one download at a time
// written in a process (an account's export, their own data). Each reads
// every room of its account or person in one transaction that holds a
// pool connection until the file is written (seconds to a minute at
// 20,000 rooms), and nothing else held them: one owner's 20 exports at
// once of a 3,000-room account held 20 of the process's 50 connections and
// took another tenant's move from p50/p99 4.5/35 ms to 22/82 ms on two
// cores; 50 of them would have held the whole pool. A second one is
// refused at once, before any work. It is counted by the person, not the
// account, so that nobody's requests can hold up an owner's export.
type oneAtATime struct {
	mu   sync.Mutex
	busy map[int64]bool
}

// take marks the user's download as being written, unless one is;
// release (when the file is sent: sendJSONSpooled; once, later calls do
// nothing) ends it.
func (o *oneAtATime) take(holder int64) (release func(), ok bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.busy[holder] {
		return nil, false
	}
	if o.busy == nil {
		o.busy = map[int64]bool{}
	}
	o.busy[holder] = true
	return sync.OnceFunc(func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		delete(o.busy, holder)
	}), true
}

// downloadBusy answers a download refused while another of the person's
// is being written: 429 with Retry-After and a page saying so.
func (d *Dashboard) downloadBusy(c *fiber.Ctx) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(downloadRetry))
	c.Status(fiber.StatusTooManyRequests)
	w := d.words(c, nil)
	return d.renderPage(c, "error", &page{Title: w.T("error.too_many"), Data: w.T("nn17_download_busy")}, nil)
}
