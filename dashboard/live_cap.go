package dashboard

import (
	"strconv"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/internal/locale"
)

// maxLiveStreams is how many live streams (the rooms list's and the
// rooms', together) one signed-in person may hold open at once in one
// process: far more than the pages a person keeps open, far fewer than
// the thousands one person (or a stolen session) could otherwise hold,
// each a connection and a watch.
const maxLiveStreams = 20

// liveRetry is the Retry-After of a stream refused past the cap, in
// seconds: a page's script waits at least this long before trying again
// (app.js).
const liveRetry = 60

// maxSeatStreams is how many live streams one person's seat (its /p/
// link, read by whoever holds it) may have open at once in one process:
// as many as a signed-in person's, for the same reasons. The strangers'
// per-address limit alone let one address hold a stream per request it
// was allowed, and many addresses without end.
const maxSeatStreams = 20

// liveStreams counts the open live streams of each holder: a signed-in
// person (by user id), or a person's seat (by room id).
type liveStreams struct {
	mu  sync.Mutex
	per map[int64]int
}

// open takes one of the holder uid's places, if fewer than limit are
// taken; release gives it back (once).
func (s *liveStreams) open(uid int64, limit int) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.per[uid] >= limit {
		return nil, false
	}
	if s.per == nil {
		s.per = map[int64]int{}
	}
	s.per[uid]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.per[uid]--; s.per[uid] <= 0 {
				delete(s.per, uid)
			}
		})
	}, true
}

// tooManyStreams answers a stream past the cap: 429 with Retry-After,
// which a browser's EventSource takes as the stream's end (the page stays,
// without live updates; app.js tries again later), and a page saying why.
// key says it to the reader: error.live_streams (a person's) or
// cap9_seat_streams (a seat's), with limit.
func (d *Dashboard) tooManyStreams(c *fiber.Ctx, key locale.Key, limit int) error {
	c.Set(fiber.HeaderRetryAfter, strconv.Itoa(liveRetry))
	c.Status(fiber.StatusTooManyRequests)
	w := d.words(c, nil)
	return d.renderPage(c, "error", &page{Title: w.T("error.too_many"), Data: w.T(key, limit)}, nil)
}
