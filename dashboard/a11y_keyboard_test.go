package dashboard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// focusRing is the focused element's ring against what surrounds it:
// what it is, and the contrast ratio (WCAG's relative luminance) of the
// outline's colour to the background of the nearest box that paints one.
const focusRing = `(() => {
  const e = document.activeElement; const s = getComputedStyle(e);
  const rgb = c => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = c => { const v = rgb(c).slice(0, 3).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  let p = e.parentElement, bg = 'rgb(255, 255, 255)';
  for (; p; p = p.parentElement) { const b = getComputedStyle(p).backgroundColor; const a = rgb(b); if (a.length === 3 || a[3] > 0) { bg = b; break; } }
  const what = e.tagName.toLowerCase() + ' ' + (e.getAttribute('aria-label') || e.textContent || e.name || '').trim().replace(/\s+/g, ' ').slice(0, 30);
  if (s.outlineStyle === 'none' || parseFloat(s.outlineWidth) < 2) return what + ' : no outline';
  const a = lum(s.outlineColor), b = lum(bg);
  return what + ' : ' + ((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)).toFixed(2);
})()`

// tabStops presses Tab up to n times from the top of the page and
// returns focusRing at each stop, until the page's last control.
func (br *browser) tabStops(tab context.Context, n int) []string {
	br.t.Helper()
	br.do(tab, "start at the top", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
	var stops []string
	for range n {
		br.do(tab, "tab", chromedp.KeyEvent("\t"))
		if body, _ := chromedp.Run(tab, chromedp.Evaluate[bool](`document.activeElement === document.body`)); body {
			break
		}
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](focusRing))
		if err != nil {
			br.t.Fatal(err)
		}
		if len(stops) == 0 || stops[len(stops)-1] != s {
			stops = append(stops, s)
		}
	}
	return stops
}

// TestFocusRingStandsOut: every stop of the keyboard on a room's page and
// a one-tap page shows a ring whose colour stands out from the page
// behind it by 3:1 at least (WCAG 1.4.11, non-text contrast), so a person
// who sees less well finds where the keyboard is.
func TestFocusRingStandsOut(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	_, roomID, token := b.askedToApprove(t, "Ring", "", meeting(3, 10, "office", "120"))
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	stranger := br.tab()
	for _, p := range []struct {
		tab       context.Context
		name, url string
	}{{bob, "a room", fmt.Sprintf("/rooms/%d", roomID)}, {stranger, "a one-tap link", "/c/" + token}} {
		br.do(p.tab, "open "+p.name, chromedp.Navigate(b.base+p.url), chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
		stops := br.tabStops(p.tab, 40)
		if len(stops) < 4 {
			t.Fatalf("%s: only %d stops: %q", p.name, len(stops), stops)
		}
		for _, s := range stops {
			var ratio float64
			if i := strings.LastIndex(s, " : "); i < 0 || func() bool { _, err := fmt.Sscan(s[i+3:], &ratio); return err != nil }() || ratio < 3 {
				t.Errorf("%s: the focus ring of %q does not stand out (want 3:1)", p.name, s)
			}
		}
	}
}

// TestAddARowTakesTheFocus: a person with a keyboard who presses "Add a
// row" in a counter's repeated field lands in the new, empty row (named
// as its field), not at the top of the page three rows above it.
func TestAddARowTakesTheFocus(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: allTypesSchema, Subject: meeting(10, 10, "office", "150"), Title: "Rows"})
	if err != nil {
		t.Fatal(err)
	}
	pat := br.tab()
	br.do(pat, "open the invitation", chromedp.Navigate(open.InviteURL), chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
	br.until(pat, "the page is in the browser's zone", `document.body.dataset.zone === 'Europe/Paris'`)
	br.do(pat, "open the counter with the keyboard", chromedp.Focus(chromedp.CSS("details.counter summary")), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-more="tags"]`)))
	br.do(pat, "type a tag and add a row", chromedp.Focus(chromedp.CSS(`[name="f.tags.0.v"]`)), chromedp.KeyEvent("a"),
		chromedp.Focus(chromedp.CSS(`button[data-more="tags"]`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`[name="f.tags.3.v"]`)))
	br.until(pat, "the page is done", `document.readyState === 'complete'`)
	got, err := chromedp.Run(pat, chromedp.Evaluate[[]string](`[document.activeElement.getAttribute('name') || document.activeElement.tagName, document.activeElement.getAttribute('aria-label') || '', document.querySelector('[name="f.tags.0.v"]').value]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != "f.tags.3.v" || got[1] != "Tags" || got[2] != "a" {
		t.Errorf("after Add a row the focus is on %q (want the new row f.tags.3.v, named Tags, and the tag typed kept)", got)
	}
	// The next Tab goes on from the new row, to the next control.
	br.do(pat, "tab on", chromedp.KeyEvent("\t"))
	if next, _ := chromedp.Run(pat, chromedp.Evaluate[string](`document.activeElement.dataset.more || document.activeElement.name || document.activeElement.tagName`)); next != "tags" {
		t.Errorf("Tab from the new row goes to %q, not the next Add a row", next)
	}
}
