package dashboard

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// TestBrowserLivePagerFollowsTheList: the rooms list updates itself when a
// room opens; its "next page" link must follow. With a full first page
// (app.HumanPageSize rooms) open in the browser, one more room makes a
// second page: the link shows up live. It sat outside the live part, so the
// list grew past its page with no way on until a reload.
func TestBrowserLivePagerFollowsTheList(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	for i := 0; i < app.HumanPageSize; i++ {
		if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: fmt.Sprintf("Room %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	alice := br.tab()
	br.signIn(alice, "alice@example.test")
	br.do(alice, "open the rooms list", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(".rooms")))
	br.until(alice, "the list listens", `document.documentElement.dataset.live === 'open'`)
	if n, err := chromedp.Run(alice, chromedp.Evaluate[int](`document.querySelectorAll('a[rel="next"]').length`)); err != nil || n != 0 {
		t.Fatalf("a next page before there is one: %d %v", n, err)
	}
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "One more"}); err != nil {
		t.Fatal(err)
	}
	// Its deadline is the latest: it is the second page's first room.
	br.until(alice, "the list fetched itself", `document.body.hasAttribute('data-refreshed')`)
	if n, err := chromedp.Run(alice, chromedp.Evaluate[int](`document.querySelectorAll('a[rel="next"]').length`)); err != nil || n != 1 {
		t.Fatalf("after the room that makes a second page, %d next-page links (%v)", n, err)
	}
}
