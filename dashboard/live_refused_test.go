package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLiveAfterARefusedAnswer: a human's answer refused (their
// agent replaced the request while the focus kept the old form) shows the
// room page with the reason at /rooms/{id}/decide. That page is still the
// room: it goes on updating live when the room moves, and reloading it
// shows the room rather than sending the answer again. Before the fix, the
// page fetched its own address (a POST-only path, 405) on every change and
// stayed as it was.
func TestBrowserLiveAfterARefusedAnswer(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	_, tb, roomID, _, _ := b.askedBeta("Refused then live", 9)
	bobTab := br.tab()
	br.signIn(bobTab, "bob@example.test")
	br.do(bobTab, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
	br.until(bobTab, "the page listens", `document.documentElement.dataset.live === 'open'`)
	// A keyboard user on the Confirm button: the part with the focus is kept.
	br.do(bobTab, "focus confirm", chromedp.Focus(chromedp.CSS(`button[data-answer="confirm"]`)))
	if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "reject", ""); err != nil {
		t.Fatal(err)
	}
	br.until(bobTab, "the change is told, the form kept", `(document.querySelector('[data-live-say]').textContent || '').indexOf('kept') >= 0`)
	br.do(bobTab, "press the old confirm", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#room-live p.error`)))
	br.until(bobTab, "the refused page listens", `document.documentElement.dataset.live === 'open'`)
	br.do(bobTab, "mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	// Bob's agent counters: round 2, live on the refused page too.
	if _, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(9, 11, "office", "25"))); err != nil {
		t.Fatal(err)
	}
	br.until(bobTab, "the counter shows live on the refused page",
		`document.querySelector('#room-live [data-round]').textContent === '2' && window.notReloaded === true`)
	// Reloading shows the room (a GET), not the form sent again.
	br.do(bobTab, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#room-live [data-round]`)))
	where, err := chromedp.Run(bobTab, chromedp.Evaluate[string](`location.pathname + location.search`))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("/rooms/%d?side=b", roomID); where != want {
		t.Fatalf("after the reload the page is %q, want %q", where, want)
	}
	if s := br.text(bobTab, "#room-live"); strings.Contains(s, "Something") || !strings.Contains(s, "round 2") {
		t.Fatalf("after the reload: %q", s)
	}
}
