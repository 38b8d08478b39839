package app

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// announcer tells the live pages of every process (LISTEN RoomChannel)
// which rooms changed, after their transactions committed. What changes
// within announceWindow goes in one statement, so under load one statement
// announces many moves, and the statements are at most one per window
// whatever the load. A goroutine sends while there is something to send,
// then ends.
type announcer struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu       sync.Mutex
	pending  []int64
	draining bool
	idle     *sync.Cond // on mu, signalled when draining ends
}

func newAnnouncer(pool *pgxpool.Pool, log *slog.Logger) *announcer {
	a := &announcer{pool: pool, log: log}
	a.idle = sync.NewCond(&a.mu)
	return a
}

// add announces rooms; it does not wait.
func (a *announcer) add(rooms []int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = append(a.pending, rooms...)
	if !a.draining {
		a.draining = true
		go a.drain()
	}
}

// announceWindow is how long an announcement waits for others to go with
// it: what it adds to a page's or a waiting reader's delay (their goal is
// 1 s), and what it saves PostgreSQL (at 200 moves a second, about a
// third of a statement per move).
const announceWindow = 25 * time.Millisecond

// drain sends what add left, a batch per window, until nothing is pending.
func (a *announcer) drain() {
	for {
		time.Sleep(announceWindow)
		a.mu.Lock()
		rooms := a.pending
		if len(rooms) == 0 {
			a.draining = false
			a.idle.Broadcast()
			a.mu.Unlock()
			return
		}
		a.pending = nil
		a.mu.Unlock()
		slices.Sort(rooms)
		a.send(slices.Compact(rooms))
	}
}

// flush waits until everything added was sent (or failed): at shutdown,
// before the pool closes, so that the last changes still reach the other
// processes' pages.
func (a *announcer) flush() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.draining {
		a.idle.Wait()
	}
}

// send announces one batch. A failure is logged and nothing more: the
// changes stand, and a page that missed one shows it at its next change
// or reload.
func (a *announcer) send(rooms []int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := announceRooms(ctx, a.pool, rooms); err != nil {
		a.log.Warn("live pages not told of room changes", "rooms", len(rooms), "err", err)
	}
}
