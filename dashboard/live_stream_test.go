package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// TestLiveStreamHearsAndLetsGo: a live stream opens, carries a change of
// its room, lets go of its watch once its client is gone, and ends when
// the dashboard stops.
func TestLiveStreamHearsAndLetsGo(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	hub := NewHub(func(context.Context, int64) ([]app.RoomSeat, error) { return nil, nil }, slog.New(slog.DiscardHandler))
	d := &Dashboard{ctx: ctx, hub: hub}
	a := fiber.New(fiber.Config{DisableStartupMessage: true})
	a.Get("/rooms/:id/events", func(c *fiber.Ctx) error {
		id, _ := c.ParamsInt("id")
		ch, stop := hub.watchRoom(int64(id))
		return d.stream(c, ch, stop, nil, nil)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Listener(ln) }()
	defer func() { _ = a.ShutdownWithTimeout(time.Second) }()
	watchers := func(room int64) int {
		hub.mu.Lock()
		defer hub.mu.Unlock()
		return len(hub.rooms[room])
	}
	open := func(room int64) (net.Conn, *bufio.Reader) {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET /rooms/%d/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n", room)
		return conn, bufio.NewReader(conn)
	}
	until := func(br *bufio.Reader, want string) string {
		t.Helper()
		var seen strings.Builder
		for {
			line, err := br.ReadString('\n')
			seen.WriteString(line)
			if err != nil {
				t.Fatalf("the stream ended before %q: %v\n%s", want, err, seen.String())
			}
			if strings.TrimRight(line, "\r\n") == want {
				return seen.String()
			}
		}
	}

	conn, br := open(7)
	head := until(br, ": live")
	// X-Accel-Buffering: nginx, which buffers a response by default, passes
	// each change at once (deploy/nginx/taasky.conf tunes nothing for it).
	for _, want := range []string{"HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Transfer-Encoding: chunked", "X-Accel-Buffering: no", "retry: 1500"} {
		if !strings.Contains(head, want) {
			t.Errorf("the stream's start lacks %q:\n%s", want, head)
		}
	}
	if n := watchers(7); n != 1 {
		t.Fatalf("%d watches of room 7 with one page open", n)
	}
	hub.Publish(8) // another room: nothing for this page
	hub.Publish(7)
	until(br, "event: change")
	conn.Close()
	// The next message to a page gone fails, which ends its watch.
	for deadline := time.Now().Add(10 * time.Second); watchers(7) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the page is gone and its room is still watched")
		}
		hub.Publish(7)
	}

	conn, br = open(9)
	defer conn.Close()
	until(br, ": live")
	cancel() // the dashboard stops: the stream ends (its last, empty chunk)
	until(br, "0")
	for deadline := time.Now().Add(5 * time.Second); watchers(9) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stream ended and its room is still watched")
		}
	}
}

// TestHubTellsRoomPagesFirst: a room's pages hear of its change while the
// lists' query for another room still runs, and the accounts of a room
// whose two seats have one are asked for once.
func TestHubTellsRoomPagesFirst(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var asked sync.Map // room → times asked
	hub := NewHub(func(_ context.Context, room int64) ([]app.RoomSeat, error) {
		n, _ := asked.LoadOrStore(room, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		if room == 1 {
			<-release // a slow query
		}
		return []app.RoomSeat{{Account: 100 + room}, {Account: 200 + room}}, nil
	}, slog.New(slog.DiscardHandler))
	page2, stop2 := hub.watchRoom(2)
	defer stop2()
	list1, stopList1 := hub.watchList(0, []int64{101}, nil)
	defer stopList1()
	list2, stopList2 := hub.watchList(0, []int64{202}, nil)
	defer stopList2()
	hub.Publish(1)
	for { // the drain is in room 1's query
		if n, ok := asked.Load(int64(1)); ok && n.(*atomic.Int32).Load() == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	hub.Publish(2)
	select {
	case <-page2:
	case <-time.After(5 * time.Second):
		t.Fatal("room 2's page waited for room 1's query")
	}
	close(release)
	for _, ch := range []chan struct{}{list1, list2} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("a list never heard of its room's change")
		}
	}
	hub.Publish(2)
	select {
	case <-list2:
	case <-time.After(5 * time.Second):
		t.Fatal("room 2's list missed its second change")
	}
	if n, _ := asked.Load(int64(2)); n.(*atomic.Int32).Load() != 1 {
		t.Errorf("room 2's accounts were asked for %d times, want once", n.(*atomic.Int32).Load())
	}
}

// TestLiveStreamAsksToBeRenewedAtOnce: a stream whose life is over asks
// the page to open it again at once; one that opened asks for 1.5 s after
// a break.
func TestLiveStreamAsksToBeRenewedAtOnce(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	s := newLiveStream(make(chan struct{}), make(chan struct{}), func() { close(stopped) }, 50*time.Millisecond)
	var got []string
	buf := make([]byte, 4) // smaller than a message: each comes in parts
	for {
		n, err := s.Read(buf)
		got = append(got, string(buf[:n]))
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := "retry: " + retryBroken + "\n: live\n\nretry: " + retryRenewed + "\n\n"; strings.Join(got, "") != want {
		t.Fatalf("the stream said %q, want %q", strings.Join(got, ""), want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	<-stopped
	_ = s.Close() // twice is once
}

// TestHubHearsAccessBeforeChangesAtReconnect: when the listener
// (re)connects it calls each of the hub's channels' Heard in turn, as
// app.Listen does; a stream's access check is woken before any change is,
// so a person who lost access while the listener was away is never told
// of a change first. Before, the rooms' channel came first, and its drain
// woke every page and list while no check was due yet.
func TestHubHearsAccessBeforeChangesAtReconnect(t *testing.T) {
	t.Parallel()
	hub := NewHub(func(context.Context, int64) ([]app.RoomSeat, error) { return nil, nil }, slog.New(slog.DiscardHandler))
	_, check, stopCheck := hub.watchUser(7)
	defer stopCheck()
	page, stopPage := hub.watchRoom(9)
	defer stopPage()
	list, stopList := hub.watchList(0, []int64{3}, nil)
	defer stopList()
	drained := func() { // Publish(0) drains on a goroutine of its own
		for {
			hub.mu.Lock()
			draining := hub.draining
			hub.mu.Unlock()
			if !draining {
				return
			}
			runtime.Gosched()
		}
	}
	for i, c := range hub.Channels(app.RoomChanges) {
		if c.Heard == nil {
			continue
		}
		c.Heard(true)
		drained()
		if len(check) == 0 && (len(page) > 0 || len(list) > 0) {
			t.Fatalf("after channel %d (%s): a page or a list was woken before its person's access check", i, c.Name)
		}
	}
	if len(check) == 0 || len(page) == 0 || len(list) == 0 {
		t.Fatalf("after a reconnection: check %d, page %d, list %d woken; want all", len(check), len(page), len(list))
	}
}
