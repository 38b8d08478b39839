package dashboard

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// TestBrowserLiveKeepsARefusedCounter: a person's counter refused for a
// bad value comes back with what they typed and the error beside the
// field. When the room then changes (the inviter's agent asks its human
// to withdraw), the live update must not put the page's first values back
// over what the person typed, nor drop the error. Before the fix it did:
// the refused values were the form's defaults, so the part counted as
// untouched and was swapped as soon as the focus was not in it.
func TestBrowserLiveKeepsARefusedCounter(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Typed and kept"})
	if err != nil {
		t.Fatal(err)
	}
	pat := br.tab()
	br.do(pat, "open the counter form", chromedp.Navigate(open.InviteURL),
		chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
	br.do(pat, "counter",
		chromedp.Click(chromedp.CSS("details.counter summary")),
		chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "120"),
		chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
		chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
	br.until(pat, "the personal page listens", `document.documentElement.dataset.live === 'open'`)
	if _, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("counter", meeting(10, 11, "office", "140"))); err != nil {
		t.Fatal(err)
	}
	br.until(pat, "the inviter's counter shows live", `!!document.querySelector('details.counter summary')`)
	br.do(pat, "send a bad amount",
		chromedp.Click(chromedp.CSS("details.counter summary")),
		chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.999"),
		chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#err-fee")))
	br.until(pat, "the refused page listens", `document.documentElement.dataset.live === 'open'`)
	// The focus leaves the form (a click beside it, while they think).
	br.do(pat, "focus away", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	// The inviter's agent asks its human to withdraw: the room changed.
	if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, "cancel", ""); err != nil {
		t.Fatal(err)
	}
	br.until(pat, "the change is heard", `document.body.hasAttribute('data-refreshed')`)
	v, err := chromedp.Run(pat, chromedp.Evaluate[string](`(document.querySelector('input[name="f.fee.0.amount"]') || {}).value || ''`))
	if err != nil {
		t.Fatal(err)
	}
	if v != "99.999" {
		t.Fatalf("the fee typed was replaced by %q", v)
	}
	if s := br.text(pat, "#err-fee"); !strings.Contains(s, "Fee") {
		t.Fatalf("the error beside the fee: %q", s)
	}
}
