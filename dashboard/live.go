package dashboard

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/fiberhttp"
)

// Hub fans room changes out to the live pages of this process. Publish is
// fed by one LISTEN connection per process (app.Listen, app.RoomChanges), so a
// change made by any process reaches every page.
type Hub struct {
	accountsOf func(ctx context.Context, roomID int64) ([]int64, error)
	log        *slog.Logger

	mu       sync.Mutex
	rooms    map[int64]map[chan struct{}]struct{}
	accounts map[int64]map[chan struct{}]struct{}
	// users are the streams of each signed-in person, woken when their
	// access may have changed (AccessChanged).
	users map[int64]map[chan struct{}]struct{}
	// Changes not fanned out yet (pending, or all when too many piled
	// up), and whether a goroutine is fanning them out.
	pending  map[int64]struct{}
	all      bool
	draining bool
	// seated are the two accounts of rooms whose both seats have one: a
	// room's seats never change hands, so those are asked for once.
	seated map[int64][2]int64
}

// maxSeated bounds Hub.seated; when full it starts afresh.
const maxSeated = 100_000

// maxPending is how many changed rooms the hub holds before it tells every
// page instead.
const maxPending = 10_000

// NewHub returns a hub; accountsOf says which accounts sit in a room (for
// the pages that list an account's rooms).
func NewHub(accountsOf func(ctx context.Context, roomID int64) ([]int64, error), log *slog.Logger) *Hub {
	return &Hub{accountsOf: accountsOf, log: log, pending: map[int64]struct{}{}, seated: map[int64][2]int64{},
		rooms: map[int64]map[chan struct{}]struct{}{}, accounts: map[int64]map[chan struct{}]struct{}{},
		users: map[int64]map[chan struct{}]struct{}{}}
}

// AccessChanged tells the streams of user userID (0: of everyone) that
// what the user may see may have changed (app.AccessChanges): each checks
// its access again before it says anything more (liveStream). Like
// Publish, it does not wait. It is called before the listener hands on
// any room change committed after the access' change, so a stream never
// tells of such a change first.
func (h *Hub) AccessChanged(userID int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if userID != 0 {
		signal(h.users[userID])
		return
	}
	for _, set := range h.users {
		signal(set)
	}
}

// Channels are the listener's channels (app.Listen) that feed the live
// pages: whose access may have changed, then the rooms' changes (rooms:
// app.RoomChanges, or Rooms.RoomChanges, which wakes the MCP's waiting
// reads too). In this order: at a (re)connection the listener calls each
// channel's Heard in turn, and the access' AccessChanged(0) must wake every
// stream's check before Publish(0) wakes its change (on a goroutine of its
// own), or a stream whose person lost access while the listener was away
// could tell of a change first.
func (h *Hub) Channels(rooms func(changed func(roomID int64)) app.Channel) []app.Channel {
	return []app.Channel{app.AccessChanges(h.AccessChanged), rooms(h.Publish)}
}

// Publish tells the pages watching room roomID, and the lists of its
// accounts, that it changed; roomID 0 means any room may have. It does not
// wait: the listener that calls it serves other channels too. The room's
// own pages are woken here (a few channel sends); the lists by a goroutine,
// as finding a room's accounts may need a query: under 500 moves a second
// a room's pages no longer wait behind the queries for the rooms changed
// before it (issue 21). Changes of one room pending at once are told once.
func (h *Hub) Publish(roomID int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case roomID == 0 || len(h.pending) >= maxPending:
		h.all = true
	case len(h.accounts) > 0:
		h.pending[roomID] = struct{}{}
	}
	if roomID != 0 {
		signal(h.rooms[roomID])
	}
	if (h.all || len(h.pending) > 0) && !h.draining {
		h.draining = true
		go h.drain()
	}
}

// drain fans out what Publish left until nothing is pending, then ends.
func (h *Hub) drain() {
	for {
		h.mu.Lock()
		pending, all := h.pending, h.all
		if len(pending) == 0 && !all {
			h.draining = false
			h.mu.Unlock()
			return
		}
		h.pending, h.all = map[int64]struct{}{}, false
		if all {
			for _, set := range h.rooms {
				signal(set)
			}
			for _, set := range h.accounts {
				signal(set)
			}
			h.mu.Unlock()
			continue
		}
		var unknown []int64 // rooms whose accounts are to be asked for
		for id := range pending {
			if seated, ok := h.seated[id]; ok {
				signal(h.accounts[seated[0]])
				signal(h.accounts[seated[1]])
			} else {
				unknown = append(unknown, id)
			}
		}
		h.mu.Unlock()
		h.tellLists(unknown)
	}
}

// lookups is how many queries for rooms' accounts the hub has running at
// once: one at a time, 500 moves a second left the lists of the last
// rooms changed a second behind.
const lookups = 8

// tellLists asks for the accounts seated in each room, `lookups` at a time,
// and wakes their lists.
func (h *Hub) tellLists(rooms []int64) {
	sem := make(chan struct{}, lookups)
	var wg sync.WaitGroup
	for _, roomID := range rooms {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			ids, err := h.accountsOf(ctx, roomID)
			cancel()
			if err != nil {
				h.log.Warn("live: accounts of a room", "room", roomID, "err", err)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(ids) == 2 {
				if len(h.seated) >= maxSeated {
					h.seated = map[int64][2]int64{}
				}
				h.seated[roomID] = [2]int64{ids[0], ids[1]}
			}
			for _, a := range ids {
				signal(h.accounts[a])
			}
		}()
	}
	wg.Wait()
}

// signal wakes each watcher; one pending wake-up is enough for a page.
func signal(set map[chan struct{}]struct{}) {
	for ch := range set {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (h *Hub) add(m map[int64]map[chan struct{}]struct{}, keys []int64) (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	for _, k := range keys {
		if m[k] == nil {
			m[k] = map[chan struct{}]struct{}{}
		}
		m[k][ch] = struct{}{}
	}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, k := range keys {
			delete(m[k], ch)
			if len(m[k]) == 0 {
				delete(m, k)
			}
		}
	}
}

// watchRoom wakes ch when the room changes.
func (h *Hub) watchRoom(roomID int64) (chan struct{}, func()) {
	return h.add(h.rooms, []int64{roomID})
}

// watchAccounts wakes ch when a room of one of the accounts changes.
func (h *Hub) watchAccounts(ids []int64) (chan struct{}, func()) { return h.add(h.accounts, ids) }

// watchUser wakes ch when the user's access may have changed.
func (h *Hub) watchUser(userID int64) (chan struct{}, func()) {
	return h.add(h.users, []int64{userID})
}

const (
	// streamLife ends each event stream before the server's write timeout
	// (60 s); EventSource reconnects by itself and the page refreshes once.
	streamLife = 45 * time.Second
	heartbeat  = 15 * time.Second
)

// failStream answers a live page's stream that could not be opened. While
// the database does not answer it is an empty stream that asks to be
// opened again in retryAfter seconds: a browser's EventSource gives up for
// good on any status but 200, and reconnects by itself when a stream ends.
// Anything else is answered as a page would be.
func (d *Dashboard) failStream(c *fiber.Ctx, err error) error {
	if app.ErrorCodeOf(err) != app.ErrInternal || !unavailable(err) {
		return d.fail(c, err)
	}
	d.log.Warn("live stream: the database did not answer", "path", fiberhttp.LogPath(c), "err", err)
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendString("retry: " + retryAfter + "000\n\n")
}

// stream answers with a server-sent event stream: an event "change" each
// time ch wakes, until the stream's life ends, the client goes away or
// the dashboard stops; with acc (a signed-in person's stream), until their
// session ends or their access is lost, too (streamAccess).
func (d *Dashboard) stream(c *fiber.Ctx, ch chan struct{}, stop func(), acc *streamAccess) error {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no")
	// Each stream lives from two thirds of streamLife to all of it, so that
	// pages opened together (a crowd reconnecting after a restart) do not
	// all open again together every 45 s: 10,000 at once kept the server
	// busy for a second (issue 21's bench).
	life := streamLife - rand.N(streamLife/3)
	s := newLiveStream(d.ctx.Done(), ch, stop, life)
	if acc != nil {
		s.recheck, s.check = acc.recheck, acc.check
		if left := time.Until(acc.expires); left < life {
			// The session ends first: so does the stream, saying so.
			s.end.Reset(max(left, 0))
			s.ending = acc.gone(goneSignedOut)
		}
	}
	c.Context().SetBodyStream(s, -1)
	return nil
}

// liveStream is a live page's event stream as the response's body: fasthttp
// reads it on the connection's own goroutine and sends each Read as a
// chunk, flushed at once. A page open thus costs its connection and a
// blocked Read, nothing more; SetBodyStreamWriter spent a goroutine, a
// pipe and a 4 KiB buffer more on each (issue 21: 10,000 pages in one
// process). fasthttp closes the body once the response ended, written or
// not (a client gone makes the write fail): Close stops the watch.
type liveStream struct {
	done    <-chan struct{}
	ch      chan struct{}
	stop    func()
	end     *time.Timer
	beat    *time.Ticker
	pending string // what the last Read could not hold
	last    bool   // pending is the last message
	ending  string // the last message when its life ends
	closed  sync.Once
	// recheck wakes when the access of the stream's person may have
	// changed (Hub.AccessChanged); check then says whether the stream goes
	// on: ok, or end with last ("": without a word). Nil for a seat's
	// stream.
	recheck <-chan struct{}
	check   func() (last string, ok bool)
}

// Reconnecting: a stream asks to be opened again 1.5 s after it broke
// (retryBroken: a server that went away is not stormed), but at once when
// it ended because its life was over (retryRenewed). A page learns of what
// changed while it was away when it opens again (app.js refreshes it), so
// the pause is latency: with 1.5 s after every 45-s life, 3 % of pages
// heard a change up to 1.5 s late (issue 21's bench, pages kept open).
const (
	retryBroken  = "1500"
	retryRenewed = "100"
)

func newLiveStream(done <-chan struct{}, ch chan struct{}, stop func(), life time.Duration) *liveStream {
	return &liveStream{done: done, ch: ch, stop: stop, end: time.NewTimer(life), beat: time.NewTicker(heartbeat),
		pending: "retry: " + retryBroken + "\n: live\n\n", ending: "retry: " + retryRenewed + "\n\n"}
}

// Read waits for the next message: a change, a heartbeat, or the stream's
// end (io.EOF). When its person's access may have changed it checks it
// first, and a change heard with it is told only if the stream goes on.
func (s *liveStream) Read(p []byte) (int, error) {
	for s.pending == "" {
		if s.last {
			return 0, io.EOF
		}
		select {
		case <-s.done:
			return 0, io.EOF
		case <-s.end.C:
			s.pending, s.last = s.ending, true
		case <-s.beat.C:
			s.pending = ": beat\n\n"
		case <-s.recheck:
			s.pending, s.last = s.checked("")
		case <-s.ch:
			s.pending = "event: change\ndata: changed\n\n"
			select {
			case <-s.recheck: // heard before the change (AccessChanged)
				s.pending, s.last = s.checked(s.pending)
			default:
			}
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// checked is then if the stream goes on, else its last message.
func (s *liveStream) checked(then string) (string, bool) {
	last, ok := s.check()
	if ok {
		return then, false
	}
	return last, true
}

// Close ends the watch.
func (s *liveStream) Close() error {
	s.closed.Do(func() {
		s.end.Stop()
		s.beat.Stop()
		s.stop()
	})
	return nil
}
