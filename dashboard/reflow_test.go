package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// overflowing lists up to six elements reaching past the right edge of
// the window, or whose text does (a heading's long word spills out of a
// box that fits), when the page is wider than it (a region meant to
// scroll, .scroll, is allowed); the page itself if none is found.
const overflowing = `(() => { const w = document.documentElement.clientWidth; const out = [];
  if (document.documentElement.scrollWidth <= w) return [];
  document.querySelectorAll('main *, header *').forEach(e => { const r = e.getBoundingClientRect();
    const spills = e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 && getComputedStyle(e).overflowX === 'visible';
    if ((r.right > w + 1 || spills) && r.width > 0 && !e.closest('.scroll')) out.push(e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + '=' + Math.round(Math.max(r.right, r.left + e.scrollWidth)) + ' ' + (e.textContent||'').trim().slice(0, 40)); });
  if (out.length === 0) out.push('the page=' + document.documentElement.scrollWidth);
  return out.slice(0, 6); })()`

// TestPagesReflowAt320: at 320 CSS pixels wide (a small phone, or a
// 1280-pixel screen at 400% zoom, WCAG 1.4.10) no page in any language is
// wider than the screen, so nobody scrolls sideways to read a line or
// reach a button (a time zone's <select> once made the settings and the
// counter form wider; the members table hid "Leave" off screen).
func TestPagesReflowAt320(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	for _, l := range locale.Languages() {
		t.Run(l.Tag, func(t *testing.T) {
			br := br.on(t)
			if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, l.Tag); err != nil {
				t.Fatal(err)
			}
			stranger := br.tabIn(l.Tag)
			if _, err := chromedp.Call(stranger, network.SetCookie, network.SetCookieParams{Name: zoneCookie, Value: "UTC", URL: b.base}); err != nil {
				t.Fatal(err)
			}
			_, roomID, token := b.askedToApprove(t, "Kick-off "+l.Tag, `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`, meeting(3, 10, "office", "120"))
			open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Design review"})
			if err != nil {
				t.Fatal(err)
			}
			pages := []struct{ who, name, url, ready string }{
				{"s", "signed out", "/", "main h1"},
				{"b", "rooms", "/", ".rooms"},
				{"b", "room", fmt.Sprintf("/rooms/%d", roomID), `button[data-answer="confirm"]`},
				{"b", "settings", "/settings", "#tz"},
				{"b", "deliveries", "/settings/deliveries", "main h1"},
				{"b", "start", "/accounts/beta/start", "#start-mcp"},
				{"b", "members", "/accounts/beta/members", "table.members"},
				{"b", "account settings", "/accounts/beta/settings", "#account-name"},
				{"b", "webhooks", "/accounts/beta/webhooks", "#webhook-url"},
				{"s", "onetap", "/c/" + token, `button[data-answer="confirm"]`},
				{"s", "invitation", "/i/" + strings.TrimPrefix(open.InviteURL, b.base+"/i/"), "details.counter summary"},
			}
			for _, p := range pages {
				tab := stranger
				if p.who == "b" {
					tab = bob
				}
				br.do(tab, "open "+p.name, chromedp.EmulateViewport(320, 800), chromedp.Navigate(b.base+p.url), chromedp.WaitVisible(chromedp.CSS(p.ready)),
					// what is folded is read too
					chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details').forEach(d => d.open = true)`))
				got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](overflowing))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) > 0 {
					t.Errorf("%s %s is wider than 320 px: %q", l.Tag, p.name, got)
					br.shot(tab, "reflow-"+l.Tag+"-"+strings.ReplaceAll(p.name, " ", "-"))
				}
			}
		})
	}
}
