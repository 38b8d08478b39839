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
// the rooms' together; one more is answered 429 with Retry-After (which a
// browser's EventSource takes as the end: the page stays, without live
// updates), and a stream that ends frees its place. Another person is not
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
	for _, path := range []string{"/events", fmt.Sprintf("/rooms/%d/events", roomID)} {
		s := open(b.alice, path)
		if !strings.HasPrefix(s.head, "HTTP/1.1 429") || !strings.Contains(s.head, "Retry-After: ") {
			t.Errorf("%s, one stream past the cap:\n%s", path, s.head)
		}
	}
	if s := open(b.bob, "/events"); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Errorf("another person's stream:\n%s", s.head)
	}
	// A page closed: its stream ends at the next message, and frees its place.
	held[0].conn.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b.dash.hub.Publish(0)
		time.Sleep(50 * time.Millisecond)
		if s := open(b.alice, "/events"); strings.HasPrefix(s.head, "HTTP/1.1 200") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed page's place was not freed")
		}
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
	// Signed in by her session cookie: a sign-in through the pages would
	// leave a live page behind, whose stream holds a place until it ends.
	if _, err := chromedp.Call(tab, network.SetCookie, network.SetCookieParams{Name: sessionCookie, Value: b.sessionOf(b.alice), URL: b.base}); err != nil {
		t.Fatal(err)
	}
	var held []liveConn
	for range maxLiveStreams {
		s := b.openLive(t, b.alice, "/events")
		if !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Fatalf("stream %d refused:\n%s", len(held)+1, s.head)
		}
		held = append(held, s)
	}
	br.do(tab, "open the rooms list", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)))
	br.until(tab, "the refused stream is let go, for a minute", `document.documentElement.dataset.live === 'closed' && window.liveWaits[0] === 60000`)
	br.until(tab, "asked again, less often", `window.liveWaits.length >= 3`)
	held[0].conn.Close()
	br.do(tab, "heard again once a place is free", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for {
			b.dash.hub.Publish(0)
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
