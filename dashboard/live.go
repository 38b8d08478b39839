package dashboard

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"strconv"
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
	seatsOf func(ctx context.Context, roomID int64) ([]app.RoomSeat, error)
	log     *slog.Logger

	mu    sync.Mutex
	rooms map[int64]map[chan struct{}]struct{}
	// The lists: of every room of an account (its leads'), and of the
	// rooms of an account whose seat a member answers for (a member's).
	accounts map[int64]map[chan struct{}]struct{}
	owned    map[ownSeat]map[chan struct{}]struct{}
	// users are the streams of each signed-in person, woken when their
	// access may have changed (AccessChanged); everyone holds each stream's
	// other channel, woken when anyone's may have (AccessChanged(0)), and
	// the seats' streams' (spreadAtReconnection).
	users    map[int64]map[chan struct{}]struct{}
	everyone map[chan struct{}]struct{}
	// Changes not fanned out yet (pending, or all when too many piled
	// up), and whether a goroutine is fanning them out.
	pending  map[int64]struct{}
	all      bool
	draining bool
	// seated are the two seats of rooms whose both seats are accounts': a
	// seat's account never changes, so those are asked for once. Its human
	// may leave it (nobody's then), always with a change of their access:
	// AccessChanged forgets them all, and gen tells a lookup that began
	// before not to keep what it read.
	seated map[int64][2]app.RoomSeat
	gen    uint64
	// rechecks are the streams' checks after AccessChanged(0) under way,
	// at most recheckAtOnce.
	rechecks chan struct{}
}

// ownSeat is a member's seats of an account.
type ownSeat struct{ account, user int64 }

// maxSeated bounds Hub.seated; when full it starts afresh.
const maxSeated = 100_000

// maxPending is how many changed rooms the hub holds before it tells every
// page instead.
const maxPending = 10_000

// NewHub returns a hub; seatsOf says which accounts sit in a room, and
// who answers for each seat (for the pages that list rooms).
func NewHub(seatsOf func(ctx context.Context, roomID int64) ([]app.RoomSeat, error), log *slog.Logger) *Hub {
	return &Hub{seatsOf: seatsOf, log: log, pending: map[int64]struct{}{}, seated: map[int64][2]app.RoomSeat{},
		rooms: map[int64]map[chan struct{}]struct{}{}, accounts: map[int64]map[chan struct{}]struct{}{},
		owned: map[ownSeat]map[chan struct{}]struct{}{},
		users: map[int64]map[chan struct{}]struct{}{}, everyone: map[chan struct{}]struct{}{},
		rechecks: make(chan struct{}, recheckAtOnce)}
}

// AccessChanged tells the streams of user userID (0: of everyone) that
// what the user may see may have changed (app.AccessChanges): each checks
// its access again before it says anything more (liveStream). Like
// Publish, it does not wait. It is called before the listener hands on
// any room change committed after the access' change, so a stream never
// tells of such a change first.
//
// For everyone (at a reconnection), each stream checks within a moment of
// its own (recheckDelay), holding its page's changes until then: 10,000
// pages asked at once made 20,000 statements in one burst. A seat's stream
// tells its change then (spreadAtReconnection).
func (h *Hub) AccessChanged(userID int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seated, h.gen = map[int64][2]app.RoomSeat{}, h.gen+1
	if userID != 0 {
		signal(h.users[userID])
		return
	}
	signal(h.everyone)
}

// recheckRate is how many streams a second check their access after
// AccessChanged(0), up to recheckWithin: the checks of n streams are spread
// over n/recheckRate seconds, at most recheckWithin. At most recheckAtOnce
// run at once, so that they never hold more of the pool's connections
// (50) than that, whatever the database's pace: the moves and the pages
// keep the rest.
const (
	recheckRate   = 5000
	recheckWithin = 2 * time.Second
	recheckAtOnce = 8
)

// recheckDelay is when a stream checks its access after AccessChanged(0):
// a moment drawn within the spread of the streams open.
func (h *Hub) recheckDelay() time.Duration {
	h.mu.Lock()
	n := len(h.everyone)
	h.mu.Unlock()
	spread := min(time.Duration(n)*time.Second/recheckRate, recheckWithin)
	if spread <= 0 {
		return 0
	}
	return rand.N(spread)
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
	case len(h.accounts) > 0 || len(h.owned) > 0:
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
			for _, set := range h.owned {
				signal(set)
			}
			h.mu.Unlock()
			continue
		}
		var unknown []int64 // rooms whose accounts are to be asked for
		for id := range pending {
			if seated, ok := h.seated[id]; ok {
				h.signalSeats(seated[:])
			} else {
				unknown = append(unknown, id)
			}
		}
		h.mu.Unlock()
		h.tellLists(unknown)
	}
}

// signalSeats wakes the lists that show a room of these seats: their
// accounts' leads', and the members' who answer for one. h.mu is held.
func (h *Hub) signalSeats(seats []app.RoomSeat) {
	for _, st := range seats {
		signal(h.accounts[st.Account])
		if st.Owner != 0 {
			signal(h.owned[ownSeat{st.Account, st.Owner}])
		}
	}
}

// lookups is how many queries for rooms' accounts the hub has running at
// once: one at a time, 500 moves a second left the lists of the last
// rooms changed a second behind.
const lookups = 8

// tellLists asks for the seats of each room, `lookups` at a time, and
// wakes their lists.
func (h *Hub) tellLists(rooms []int64) {
	sem := make(chan struct{}, lookups)
	var wg sync.WaitGroup
	for _, roomID := range rooms {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			h.mu.Lock()
			gen := h.gen
			h.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			seats, err := h.seatsOf(ctx, roomID)
			cancel()
			if err != nil {
				h.log.Warn("live: seats of a room", "room", roomID, "err", err)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if len(seats) == 2 && gen == h.gen {
				if len(h.seated) >= maxSeated {
					h.seated = map[int64][2]app.RoomSeat{}
				}
				h.seated[roomID] = [2]app.RoomSeat{seats[0], seats[1]}
			}
			h.signalSeats(seats)
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

// add registers ch under each key of m; h.mu is held. The func it
// returns takes it out again, with h.mu held.
func add[K comparable](m map[K]map[chan struct{}]struct{}, keys []K, ch chan struct{}) func() {
	for _, k := range keys {
		if m[k] == nil {
			m[k] = map[chan struct{}]struct{}{}
		}
		m[k][ch] = struct{}{}
	}
	return func() {
		for _, k := range keys {
			delete(m[k], ch)
			if len(m[k]) == 0 {
				delete(m, k)
			}
		}
	}
}

// watch registers a new channel by each of adds, and returns it with the
// func that takes it out.
func (h *Hub) watch(adds ...func(ch chan struct{}) func()) (chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	var removes []func()
	for _, a := range adds {
		removes = append(removes, a(ch))
	}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, r := range removes {
			r()
		}
	}
}

// watchRoom wakes ch when the room changes.
func (h *Hub) watchRoom(roomID int64) (chan struct{}, func()) {
	return h.watch(func(ch chan struct{}) func() { return add(h.rooms, []int64{roomID}, ch) })
}

// watchList wakes ch when a room a list shows changes: every room of the
// accounts whole, the rooms of userID's own seats in the accounts own.
func (h *Hub) watchList(userID int64, whole, own []int64) (chan struct{}, func()) {
	mine := make([]ownSeat, len(own))
	for i, a := range own {
		mine[i] = ownSeat{a, userID}
	}
	return h.watch(func(ch chan struct{}) func() { return add(h.accounts, whole, ch) },
		func(ch chan struct{}) func() { return add(h.owned, mine, ch) })
}

// watchUser wakes now when the user's access may have changed, and
// anyone when everyone's may have (AccessChanged).
func (h *Hub) watchUser(userID int64) (now, anyone chan struct{}, stop func()) {
	now, stopNow := h.watch(func(ch chan struct{}) func() { return add(h.users, []int64{userID}, ch) })
	anyone, stopAnyone := h.watchEveryone()
	return now, anyone, func() { stopNow(); stopAnyone() }
}

// watchEveryone wakes ch when everyone's access may have changed
// (AccessChanged(0)); the streams watching are those recheckDelay spreads.
func (h *Hub) watchEveryone() (chan struct{}, func()) {
	return h.watch(func(ch chan struct{}) func() {
		h.everyone[ch] = struct{}{}
		return func() { delete(h.everyone, ch) }
	})
}

// spreadAtReconnection has s, a stream with no access to check (a seat's,
// /p/…), hold a change heard after AccessChanged(0) until a moment of its
// own, as the signed-in streams hold theirs until their check
// (recheckDelay: within n/recheckRate seconds of n streams, at most
// recheckWithin), and tell it then. At a reconnection the listener wakes
// every room (Publish(0)) right after everyone's access: each seat's page
// refreshes on its stream's change, and 10,000 of them told at once came
// back as 10,000 page loads at once. A change is never dropped: it is told
// at the stream's moment, and a change that comes with no reconnection
// before it is told at once.
func (h *Hub) spreadAtReconnection(s *liveStream) {
	anyone, stop := h.watchEveryone()
	s.recheckAll, s.delay = anyone, h.recheckDelay
	watched := s.stop
	s.stop = func() { watched(); stop() }
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
	d.log.WarnContext(c.UserContext(), "live stream: the database did not answer", "path", fiberhttp.LogPath(c), "err", err)
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendString("retry: " + retryAfter + "000\n\n")
}

// stream answers with a server-sent event stream: an event "change" each
// time ch wakes, until the stream's life ends, the client goes away or
// the dashboard stops; with acc (a signed-in person's stream), until their
// session ends or their access is lost, too (streamAccess).
func (d *Dashboard) stream(c *fiber.Ctx, ch chan struct{}, stop func(), evicted <-chan struct{}, acc *streamAccess) error {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no")
	// Each stream lives from two thirds of streamLife to all of it, so that
	// pages opened together (a crowd reconnecting after a restart) do not
	// all open again together every 45 s: 10,000 at once kept the server
	// busy for a second (issue 21's bench).
	life := streamLife - rand.N(streamLife/3)
	s := newLiveStream(d.ctx.Done(), ch, stop, life)
	s.evicted = evicted
	if acc == nil {
		d.hub.spreadAtReconnection(s)
	} else {
		s.recheck, s.recheckAll, s.check, s.delay, s.slots = acc.recheck, acc.recheckAll, acc.check, d.hub.recheckDelay, d.hub.rechecks
		if left := acc.expires(); left < life {
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
	evicted <-chan struct{} // closed: a newer stream of its holder took its place (live_cap.go)
	// recheck wakes when the access of the stream's person may have
	// changed (Hub.AccessChanged); check then says whether the stream goes
	// on: ok, or end with last ("": without a word). Nil for a seat's
	// stream. recheckAll wakes when everyone's may have: the stream checks
	// after delay, and until then tells of no change (it holds it); a
	// seat's stream, with nothing to check, tells it then
	// (Hub.spreadAtReconnection).
	recheck, recheckAll <-chan struct{}
	check               func() (last string, ok bool)
	delay               func() time.Duration
	hold                *time.Timer
	holding             <-chan time.Time // hold's, while a check is to come
	held                bool             // a change came while holding
	slots               chan struct{}    // Hub.rechecks
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

// retryEvicted ends a stream whose place a newer one of its holder took
// (live_cap.go): were its page still open, it asks again in a minute, as
// after a refusal (liveRetry). The event "evicted" tells the page so
// (app.js): it no longer says it updates by itself, and asks again itself;
// the retry is for a page whose script predates it.
var retryEvicted = "retry: " + strconv.Itoa(liveRetry*1000) + "\nevent: evicted\ndata: " + strconv.Itoa(liveRetry) + "\n\n"

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
		case <-s.evicted:
			s.pending, s.last = retryEvicted, true
		case <-s.beat.C:
			s.pending = ": beat\n\n"
		case <-s.recheck:
			s.pending, s.last = s.checked(s.release())
		case <-s.recheckAll:
			s.holdUntilChecked()
		case <-s.holding:
			s.holding = nil
			if s.slots != nil {
				select {
				case s.slots <- struct{}{}:
				case <-s.done:
					return 0, io.EOF
				}
			}
			s.pending, s.last = s.checked(s.release())
			if s.slots != nil {
				<-s.slots
			}
		case <-s.ch:
			select {
			case <-s.recheck: // heard before the change (AccessChanged)
				s.held = true
				s.pending, s.last = s.checked(s.release())
				continue
			default:
			}
			select {
			case <-s.recheckAll: // heard before the change (AccessChanged(0))
				s.holdUntilChecked()
			default:
			}
			if s.holding != nil {
				s.held = true
				continue
			}
			s.pending = changeEvent
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

const changeEvent = "event: change\ndata: changed\n\n"

// holdUntilChecked holds the stream's changes until its access is checked,
// after a delay of its own.
func (s *liveStream) holdUntilChecked() {
	if s.holding != nil {
		return
	}
	d := s.delay()
	if s.hold == nil {
		s.hold = time.NewTimer(d)
	} else {
		s.hold.Reset(d)
	}
	s.holding = s.hold.C
}

// release ends a hold (a check is made now): the change it held, if one
// came, is what to tell should the stream go on.
func (s *liveStream) release() string {
	if s.holding != nil {
		s.hold.Stop()
		s.holding = nil
	}
	held := s.held
	s.held = false
	if held {
		return changeEvent
	}
	return ""
}

// checked is then if the stream goes on, else its last message. A stream
// with no access to check (a seat's) goes on.
func (s *liveStream) checked(then string) (string, bool) {
	if s.check == nil {
		return then, false
	}
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
		if s.hold != nil {
			s.hold.Stop()
		}
		s.stop()
	})
	return nil
}
