package dashboard

import (
	"slices"
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
// person (by user id), or a person's seat (by room id). Past the limit, a
// new stream ends the holder's oldest instead of being refused: a page
// reloaded or closed leaves its stream open until a write to it fails (up
// to two heartbeats), so a person who reloaded a page 20 times within that
// was refused a live page for a minute, held out by streams nobody read.
// The oldest is told to end (evicted): it says "retry in a minute" and
// closes; were it a page still open, it asks again then, and ends the
// oldest in turn. Only while as many streams as the limit are told to end
// and not yet closed (their writes stuck) is a new one refused.
type liveStreams struct {
	mu  sync.Mutex
	per map[int64]*heldStreams
}

// heldStreams are one holder's streams: those open, oldest first, and how
// many were told to end and have not yet closed.
type heldStreams struct {
	open   []*streamPlace
	ending int
}

// streamPlace is a stream's place: evict is closed when a newer stream
// of its holder took it.
type streamPlace struct {
	evict   chan struct{}
	evicted bool
}

// open takes one of the holder uid's places, ending its oldest stream if
// limit are taken (evicted, closed then, says so to the stream); release
// gives the place back (once).
func (s *liveStreams) open(uid int64, limit int) (release func(), evicted <-chan struct{}, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.per[uid]
	if h == nil {
		if s.per == nil {
			s.per = map[int64]*heldStreams{}
		}
		h = &heldStreams{}
		s.per[uid] = h
	}
	if len(h.open) >= limit {
		if h.ending >= limit {
			return nil, nil, false
		}
		oldest := h.open[0]
		h.open = slices.Delete(h.open, 0, 1)
		oldest.evicted = true
		h.ending++
		close(oldest.evict)
	}
	p := &streamPlace{evict: make(chan struct{})}
	h.open = append(h.open, p)
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if p.evicted {
				h.ending--
			} else {
				h.open = slices.DeleteFunc(h.open, func(q *streamPlace) bool { return q == p })
			}
			if len(h.open) == 0 && h.ending == 0 {
				delete(s.per, uid)
			}
		})
	}, p.evict, true
}

// count is how many streams holder uid has open, those told to end
// included.
func (s *liveStreams) count(uid int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.per[uid]; h != nil {
		return len(h.open) + h.ending
	}
	return 0
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
