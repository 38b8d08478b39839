package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestReconnectionSpreadsAccessChecks: when everyone's access may have
// changed (the listener reconnected), each stream checks its own after a
// delay drawn within n/recheckRate seconds of n streams open, at most
// recheckWithin: 10,000 pages are checked over 2 s, 10 within 2 ms. Before,
// every stream checked at once: 20,000 statements in one burst.
func TestReconnectionSpreadsAccessChecks(t *testing.T) {
	t.Parallel()
	hub := NewHub(func(context.Context, int64) ([]app.RoomSeat, error) { return nil, nil }, slog.New(slog.DiscardHandler))
	delays := func() (lo, hi time.Duration) {
		lo = time.Hour
		for range 2000 {
			d := hub.recheckDelay()
			lo, hi = min(lo, d), max(hi, d)
		}
		return lo, hi
	}
	var stops []func()
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for i := range 10_000 {
		_, _, stop := hub.watchUser(int64(i % 20))
		stops = append(stops, stop)
		if i == 9 {
			if lo, hi := delays(); lo < 0 || hi >= 2*time.Millisecond {
				t.Errorf("10 streams: delays from %v to %v, want within 2 ms", lo, hi)
			}
		}
	}
	if lo, hi := delays(); lo < 0 || hi >= recheckWithin || hi < recheckWithin*9/10 || lo > recheckWithin/10 {
		t.Errorf("10,000 streams: delays from %v to %v, want spread over %v", lo, hi, recheckWithin)
	}
}

// TestChangeHeldUntilTheAccessCheck: a stream told that everyone's access
// may have changed, then of a change of its room, tells of the change only
// once its person's access was checked, and not at all if it was lost:
// while a stream waits for its turn to check (TestReconnectionSpreadsAccessChecks)
// a person removed meanwhile is told nothing.
func TestChangeHeldUntilTheAccessCheck(t *testing.T) {
	t.Parallel()
	for _, lost := range []bool{false, true} {
		t.Run(fmt.Sprint("lost=", lost), func(t *testing.T) {
			t.Parallel()
			ch, recheck, recheckAll := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{}, 1)
			s := newLiveStream(make(chan struct{}), ch, func() {}, time.Hour)
			defer s.Close()
			first := make([]byte, 100)
			if n, _ := s.Read(first); !strings.Contains(string(first[:n]), ": live") {
				t.Fatalf("the stream opened with %q", first[:n])
			}
			holding := make(chan struct{})
			var checked bool
			s.recheck, s.recheckAll = recheck, recheckAll
			s.delay = func() time.Duration { close(holding); return time.Hour } // its turn is far
			s.check = func() (string, bool) {
				checked = true
				if lost {
					return "event: gone\n\n", false
				}
				return "", true
			}
			recheckAll <- struct{}{} // the listener reconnected
			ch <- struct{}{}         // and the room changed
			type read struct {
				said    string
				checked bool
			}
			got := make(chan read)
			go func() {
				buf := make([]byte, 100)
				n, _ := s.Read(buf)
				got <- read{string(buf[:n]), checked}
			}()
			early := func(r read) {
				if r.checked {
					t.Fatalf("the stream checked at once, not in its turn, and said %q", r.said)
				}
				t.Fatalf("the stream said %q before its person's access was checked", r.said)
			}
			select {
			case <-holding:
			case r := <-got:
				early(r)
			}
			select {
			case r := <-got:
				early(r)
			default:
			}
			recheck <- struct{}{} // her own access changed: checked at once
			r := <-got
			switch {
			case !r.checked:
				t.Fatalf("the stream said %q before its person's access was checked", r.said)
			case lost && r.said != "event: gone\n\n":
				t.Fatalf("after the access was lost, the stream said %q", r.said)
			case !lost && r.said != changeEvent:
				t.Fatalf("the access kept, the stream said %q, want the change it held", r.said)
			}
		})
	}
}

// TestReconnectionChecksAFewAtOnce: however many streams' turns come at
// once after a reconnection, at most recheckAtOnce check their access at a
// time, so the checks never take more of the pool's connections than
// that. Before, every stream's check asked the pool at once (10,000 pages:
// 10,000 waiting for a connection, the moves behind them).
func TestReconnectionChecksAFewAtOnce(t *testing.T) {
	t.Parallel()
	hub := NewHub(func(context.Context, int64) ([]app.RoomSeat, error) { return nil, nil }, slog.New(slog.DiscardHandler))
	const streams = 3 * recheckAtOnce
	done := make(chan struct{})
	defer close(done)
	var mu sync.Mutex
	in, most, checked := 0, 0, 0
	release := make(chan struct{})
	for range streams {
		recheck, recheckAll, unwatch := hub.watchUser(7)
		s := newLiveStream(done, make(chan struct{}, 1), unwatch, time.Hour)
		s.recheck, s.recheckAll, s.slots = recheck, recheckAll, hub.rechecks
		s.delay = func() time.Duration { return 0 } // every turn at once
		s.check = func() (string, bool) {
			mu.Lock()
			in++
			most = max(most, in)
			mu.Unlock()
			<-release
			mu.Lock()
			in--
			checked++
			mu.Unlock()
			return "", true
		}
		go func() {
			defer s.Close()
			buf := make([]byte, 100)
			for {
				if _, err := s.Read(buf); err != nil {
					return
				}
			}
		}()
	}
	hub.AccessChanged(0)
	for left := streams; left > 0; left-- {
		// Wait for as many checks under way as may be, then let one end.
		for i := 0; ; i++ {
			mu.Lock()
			n, m := in, most
			mu.Unlock()
			if m > recheckAtOnce {
				t.Fatalf("%d streams checked their access at once, want at most %d", m, recheckAtOnce)
			}
			if n == min(recheckAtOnce, left) {
				break
			}
			if i > 10_000 {
				t.Fatalf("%d checks under way, want %d", n, min(recheckAtOnce, left))
			}
			time.Sleep(time.Millisecond)
		}
		release <- struct{}{}
	}
	for i := 0; ; i++ {
		mu.Lock()
		n := checked
		mu.Unlock()
		if n == streams {
			break
		}
		if i > 10_000 {
			t.Fatalf("%d of %d streams checked", n, streams)
		}
		time.Sleep(time.Millisecond)
	}
}
