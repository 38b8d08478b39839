package dashboard

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserLiveNeverLandsAnOlderPage: the room moves twice while the
// page's first fetch of itself is still on its way. The page must end up
// showing the room as it is, never the older copy. The browser's fetches
// are held at the response (CDP Fetch) so the order is the test's, not the
// network's: before the fix the second fetch went out beside the first,
// the test let it in first, and the first then put round 2 back over
// round 3 for good.
func TestBrowserLiveNeverLandsAnOlderPage(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	ta, tb, roomID := b.joined("Two moves at once", nil, "")
	if _, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(9, 9, "video", "20"))); err != nil {
		t.Fatal(err)
	}
	bobTab := br.tab()
	br.signIn(bobTab, "bob@example.test")
	br.do(bobTab, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d?side=b", b.base, roomID)),
		chromedp.WaitVisible(chromedp.CSS(`#room-live [data-round]`)))
	br.until(bobTab, "the page listens", `document.documentElement.dataset.live === 'open'`)

	paused := make(chan fetch.RequestID, 16)
	if err := chromedp.Listen(bobTab, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			paused <- e.RequestID
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(bobTab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{
		URLPattern: "*", ResourceType: network.ResourceTypeFetch, RequestStage: fetch.RequestStageResponse}}}); err != nil {
		t.Fatal(err)
	}
	next := func(what string) fetch.RequestID {
		t.Helper()
		select {
		case id := <-paused:
			return id
		case <-time.After(15 * time.Second):
			t.Fatalf("no fetch of the page: %s", what)
		}
		return ""
	}
	let := func(id fetch.RequestID) {
		t.Helper()
		if _, err := chromedp.Call(bobTab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
			t.Fatal(err)
		}
	}
	round := func() string {
		r, err := chromedp.Run(bobTab, chromedp.Evaluate[string](`document.querySelector('#room-live [data-round]').textContent`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	// Round 2: the page fetches itself; the answer (round 2) is held.
	if _, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(9, 10, "video", "25"))); err != nil {
		t.Fatal(err)
	}
	first := next("after round 2")
	// Round 3 while that fetch is on its way.
	if _, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("counter", meeting(9, 11, "office", "22"))); err != nil {
		t.Fatal(err)
	}
	// Either a second fetch goes out beside the first, or the page notes
	// that it must fetch again once the first is in.
	var second fetch.RequestID
	for second == "" {
		select {
		case second = <-paused:
		default:
			again, err := chromedp.Run(bobTab, chromedp.Evaluate[string](`document.documentElement.dataset.liveAgain || ''`))
			if err != nil {
				t.Fatal(err)
			}
			if again == "1" {
				second = "later"
				break
			}
			if ctxDone(b.ctx) {
				t.Fatal("the test's context ended")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if second != "later" {
		// The newer answer first, then the older one.
		stamp := refreshedStamp(t, bobTab)
		let(second)
		br.until(bobTab, "round 3 shown", `document.querySelector('#room-live [data-round]').textContent === '3'`)
		br.until(bobTab, "the newer answer handled", fmt.Sprintf(`document.body.getAttribute('data-refreshed') !== %q`, stamp))
		stamp = refreshedStamp(t, bobTab)
		let(first)
		br.until(bobTab, "the older answer handled", fmt.Sprintf(`document.body.getAttribute('data-refreshed') !== %q`, stamp))
	} else {
		let(first)
		let(next("the fetch again after the first"))
		br.until(bobTab, "round 3 shown", `document.querySelector('#room-live [data-round]').textContent === '3'`)
	}
	if r := round(); r != "3" {
		t.Fatalf("the page shows round %s; the room is at round 3", r)
	}
	if _, err := chromedp.Call(bobTab, fetch.Disable, struct{}{}); err != nil {
		t.Fatal(err)
	}
}

func refreshedStamp(t *testing.T, tab context.Context) string {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.getAttribute('data-refreshed') || ''`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ctxDone(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}
