package dashboard

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// TestLiveStreamsCappedPerPerson: one signed-in person holds at most
// maxLiveStreams live streams at once in a process, the rooms list's and
// the rooms' together. One more ends the oldest, which says to ask again
// in a minute (a page reloaded 20 times within two heartbeats was
// refused its live updates for a minute, held out by the streams of the
// pages it had left); only while as many are told to end and not yet
// closed is one more answered 429 with Retry-After. Another person is not
// held back. Before the cap one person (or a stolen session) could open
// streams without end.
func TestLiveStreamsCappedPerPerson(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Capped streams", 3)
	open := func(user app.User, path string) liveConn { return b.openLive(t, user, path) }
	var held []liveConn
	for i := range maxLiveStreams {
		path := "/events"
		if i%2 == 1 {
			path = fmt.Sprintf("/rooms/%d/events", roomID)
		}
		s := open(b.alice, path)
		if !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Fatalf("stream %d of %d refused:\n%s", i+1, maxLiveStreams, s.head)
		}
		held = append(held, s)
	}
	for i, path := range []string{"/events", fmt.Sprintf("/rooms/%d/events", roomID)} {
		if s := open(b.alice, path); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Errorf("%s, one stream past the cap:\n%s", path, s.head)
		}
		held[i].evicted(t)
	}
	for b.dash.streams.count(b.alice.ID) > maxLiveStreams {
		time.Sleep(20 * time.Millisecond) // polling for the ended streams' places
	}
	if s := open(b.bob, "/events"); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Errorf("another person's stream:\n%s", s.head)
	}
	// A page closed: its stream ends at the next message, and frees its place.
	held[5].conn.Close()
	for deadline := time.Now().Add(10 * time.Second); b.dash.streams.count(b.alice.ID) >= maxLiveStreams; time.Sleep(50 * time.Millisecond) {
		b.dash.hub.Publish(0)
		if time.Now().After(deadline) {
			t.Fatal("a closed page's place was not freed")
		}
	}
	// Refused only while as many streams as the cap are told to end and
	// not yet closed: Carol's places held by hand, her evicted ones never
	// closing.
	var places []func()
	for range 2 * maxLiveStreams {
		release, _, ok := b.dash.streams.open(b.carol.ID, maxLiveStreams)
		if !ok {
			t.Fatal("a place refused before the streams told to end filled the cap")
		}
		places = append(places, release)
	}
	defer func() {
		for _, release := range places {
			release()
		}
	}()
	if s := open(b.carol, "/events"); !strings.HasPrefix(s.head, "HTTP/1.1 429") || !strings.Contains(s.head, "Retry-After: 60") {
		t.Errorf("one stream past the cap, %d told to end and not closed:\n%s", maxLiveStreams, s.head)
	}
	places[0]() // one of those told to end closes
	if s := open(b.carol, "/events"); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Errorf("one stream past the cap once one told to end closed:\n%s", s.head)
	}
}

// evicted reads the stream to its end, which must say to ask again in a
// minute (a newer stream of its holder took its place).
func (l liveConn) evicted(t *testing.T) {
	t.Helper()
	_ = l.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got strings.Builder
	for {
		line, err := l.br.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("the oldest stream, past the cap: %v\n%s", err, got.String())
		}
		if line == "0\r\n" { // the chunked body's end
			break
		}
	}
	if !strings.Contains(got.String(), "retry: 60000\nevent: evicted\n") {
		t.Errorf("the oldest stream ended without asking to wait a minute:\n%s", got.String())
	}
}

// liveConn is a live stream opened by hand: its connection, and its
// answer's head (through the stream's first message when it is served).
type liveConn struct {
	conn net.Conn
	head string
	br   *bufio.Reader // what follows the head
}

// openLive opens path's live stream as user, on a connection of its own
// that closes when the test ends.
func (b *bundle) openLive(t *testing.T, user app.User, path string) liveConn {
	t.Helper()
	return b.openLiveWith(t, b.sessionOf(user), path)
}

// openLiveWith opens path's live stream with the session cookie session.
func (b *bundle) openLiveWith(t *testing.T, session, path string) liveConn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(b.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nCookie: %s=%s\r\n\r\n", path, sessionCookie, session)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if err != nil {
			t.Fatalf("%s: %v\n%s", path, err, head.String())
		}
		if line == "\r\n" { // the headers' end
			break
		}
	}
	if strings.HasPrefix(head.String(), "HTTP/1.1 200") {
		for { // the stream is served once its first message comes
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if line == ": live\n" {
				break
			}
		}
	}
	_ = conn.SetReadDeadline(time.Time{})
	return liveConn{conn, head.String(), br}
}

// TestBrowserLiveStreamRefused: a page whose stream is refused past the
// cap stays as it is and says so (data-live "closed"), asks again after a
// minute, then two, and so on (the test's browser waits 300 ms in place of
// each: the script's waits are recorded), not at once as EventSource would
// after a stream that broke; once a place is free it is heard again and
// fetches what it missed.
func TestBrowserLiveStreamRefused(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	tab := br.tab()
	recordLiveWaits(t, tab)
	// Signed in by her session cookie: a sign-in through the pages would
	// leave a live page behind, whose stream holds a place until it ends.
	if _, err := chromedp.Call(tab, network.SetCookie, network.SetCookieParams{Name: sessionCookie, Value: b.sessionOf(b.alice), URL: b.base}); err != nil {
		t.Fatal(err)
	}
	// Her places held by hand, half of them told to end and never
	// closing: the page's stream is refused (TestLiveStreamsCappedPerPerson).
	var places []func()
	for range 2 * maxLiveStreams {
		release, _, _ := b.dash.streams.open(b.alice.ID, maxLiveStreams)
		places = append(places, release)
	}
	defer func() {
		for _, release := range places {
			release()
		}
	}()
	br.do(tab, "open the rooms list", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)))
	br.until(tab, "the refused stream is let go, for a minute", `document.documentElement.dataset.live === 'closed' && window.liveWaits[0] === 60000`)
	br.until(tab, "asked again, less often", `window.liveWaits.length >= 3`)
	places[0]()
	br.do(tab, "heard again once a place is free", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for {
			open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.dataset.live === 'open'`))
			if err != nil || open {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	}))
	br.until(tab, "what it missed fetched", `!!document.body.dataset.refreshed`)
	waits, err := chromedp.Run(tab, chromedp.Evaluate[[]int](`window.liveWaits`))
	if err != nil {
		t.Fatal(err)
	}
	if len(waits) < 3 || waits[0] != 60000 || waits[1] != 120000 || waits[2] != 240000 {
		t.Errorf("the waits asked for: %v, want 60 s doubling", waits)
	}
	for _, w := range waits {
		if w > 600000 {
			t.Errorf("a wait of %d ms, past 10 minutes", w)
		}
	}
}

// recordLiveWaits has tab's pages wait 300 ms where app.js would wait a
// minute or more before asking for a live stream again, the waits asked
// for recorded in window.liveWaits.
func recordLiveWaits(t *testing.T, tab context.Context) {
	t.Helper()
	if _, err := chromedp.Call(tab, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: `(function () {
		var later = window.setTimeout;
		window.liveWaits = [];
		window.setTimeout = function (f, ms) {
			if (f && f.name === 'listen' && ms >= 10e3) { window.liveWaits.push(ms); ms = 300; }
			return later.call(window, f, ms);
		};
	})()`}); err != nil {
		t.Fatal(err)
	}
}
