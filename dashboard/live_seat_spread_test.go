package dashboard

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestReconnectionSpreadsSeatPages: the seats' live streams (/p/…) are
// counted in the spread of a reconnection's turns (recheckDelay), as the
// signed-in streams are, and each still tells the change the reconnection
// brought (Publish(0)). Before, a seat's stream told it at once: every
// seat's page refreshed at the same moment.
func TestReconnectionSpreadsSeatPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := "/p/" + b.seatOf(t, "Spread seat") + "/events"
	var pages []liveConn
	for range maxSeatStreams {
		s := b.openLive(t, b.bob, path)
		if !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Fatalf("stream refused:\n%s", s.head)
		}
		pages = append(pages, s)
	}
	// 20 streams: turns drawn within 20/recheckRate s = 4 ms.
	var hi time.Duration
	for range 2000 {
		d := b.dash.hub.recheckDelay()
		if d < 0 || d >= 4*time.Millisecond {
			t.Fatalf("a turn %v after the reconnection, want within 4 ms", d)
		}
		hi = max(hi, d)
	}
	if hi < 2*time.Millisecond {
		t.Fatalf("%d seat streams open: turns within %v, want spread over 4 ms", len(pages), hi)
	}
	b.dash.hub.AccessChanged(0) // as the listener does when it reconnects
	b.dash.hub.Publish(0)
	for i, p := range pages {
		_ = p.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		for {
			line, err := p.br.ReadString('\n')
			if err != nil {
				t.Fatalf("page %d was not told of the change: %v", i, err)
			}
			if line == "event: change\n" {
				break
			}
		}
	}
}

// TestSeatChangeHeldUntilItsTurn: a seat's stream told that everyone's
// access may have changed (the listener reconnected), then of a change of
// its room, tells of the change at its own turn, not at once, and tells
// it then.
func TestSeatChangeHeldUntilItsTurn(t *testing.T) {
	t.Parallel()
	hub := NewHub(func(context.Context, int64) ([]app.RoomSeat, error) { return nil, nil }, slog.New(slog.DiscardHandler))
	ch, stop := hub.watchRoom(7)
	s := newLiveStream(make(chan struct{}), ch, stop, time.Hour)
	hub.spreadAtReconnection(s)
	defer s.Close()
	first := make([]byte, 100)
	if n, _ := s.Read(first); !strings.Contains(string(first[:n]), ": live") {
		t.Fatalf("the stream opened with %q", first[:n])
	}
	turn, asked := make(chan time.Duration), make(chan struct{})
	s.delay = func() time.Duration { close(asked); return <-turn }
	hub.AccessChanged(0) // the listener reconnected
	hub.Publish(0)       // and wakes every room
	got := make(chan string)
	go func() {
		buf := make([]byte, 100)
		n, _ := s.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case <-asked:
	case said := <-got:
		t.Fatalf("the stream said %q at once, not at its turn", said)
	}
	turn <- 0
	if said := <-got; said != changeEvent {
		t.Fatalf("at its turn, the stream said %q, want the change it held", said)
	}
	hub.mu.Lock()
	n := len(hub.everyone)
	hub.mu.Unlock()
	if s.Close(); n != 1 {
		t.Fatalf("%d streams counted in the spread, want 1", n)
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if len(hub.everyone) != 0 || len(hub.rooms) != 0 {
		t.Fatalf("a closed stream is still watched: %d, %d", len(hub.everyone), len(hub.rooms))
	}
}
