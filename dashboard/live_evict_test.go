package dashboard

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserEvictedPageSaysSo: a seat's page whose stream a newer one of
// the seat took the place of (past maxSeatStreams: here opened by whoever
// holds the link) hears nothing for a minute, so it no longer says it
// updates by itself (data-live "closed", as after a refusal) and asks
// again after a minute (the test's browser waits 300 ms in place of it,
// the wait recorded); heard again, it says so again. Evicted streams once
// only said "retry: 60000": EventSource waited a minute by itself, the
// page not knowing, and a seat kept saying "This page updates by itself."
// through it, a stranger with the link able to keep it so.
func TestBrowserEvictedPageSaysSo(t *testing.T) {
	b := setup(t)
	seat := b.seatOf(t, "Evicted seat")
	br := newBrowser(t, b)
	tab := br.tab()
	recordLiveWaits(t, tab)
	const says = `document.querySelector('main').innerText.includes('This page updates by itself.')`
	br.do(tab, "open the seat", chromedp.Navigate(b.base+"/p/"+seat), chromedp.WaitVisible(chromedp.CSS("#seat-live")))
	br.until(tab, "the seat hears its stream", `document.documentElement.dataset.live === 'open' && `+says)
	// The page's stream is the seat's oldest: one more past the cap ends it.
	path := "/p/" + seat + "/events"
	for i := range maxSeatStreams {
		if s := b.openLive(t, b.bob, path); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Fatalf("stream %d:\n%s", i+1, s.head)
		}
	}
	br.until(tab, "the evicted page no longer says it updates by itself, and waits a minute",
		`document.documentElement.dataset.live === 'closed' && !(`+says+`) && window.liveWaits[0] === 60000`)
	// Asking again, it ends the seat's oldest in turn and is heard again.
	br.until(tab, "heard again", `document.documentElement.dataset.live === 'open' && `+says+` && !!document.body.dataset.refreshed`)
}
