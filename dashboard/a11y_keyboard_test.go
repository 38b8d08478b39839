package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/notify/notifytest"
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
// row" in a counter's repeated field lands in the new, empty row, not at
// the top of the page three rows above it; and a screen reader tells the
// rows apart ("Tags, row 4 of 4"), where each was only "Tags".
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
	if len(got) != 3 || got[0] != "f.tags.3.v" || got[1] != "Tags, row 4 of 4" || got[2] != "a" {
		t.Errorf("after Add a row the focus is on %q (want the new row f.tags.3.v, named \"Tags, row 4 of 4\", and the tag typed kept)", got)
	}
	// Each row says which it is; a field of one row is named as its label.
	names, err := chromedp.Run(pat, chromedp.Evaluate[[]string](`[...document.querySelectorAll('details.counter [name^="f.tags."], details.counter [name="f.note.0.v"]')].map(e => e.getAttribute('aria-label'))`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Note", "Tags, row 1 of 4", "Tags, row 2 of 4", "Tags, row 3 of 4", "Tags, row 4 of 4"}; !slices.Equal(names, want) {
		t.Errorf("the rows are named %q, want %q", names, want)
	}
	// The next Tab goes on from the new row, to the next control.
	br.do(pat, "tab on", chromedp.KeyEvent("\t"))
	if next, _ := chromedp.Run(pat, chromedp.Evaluate[string](`document.activeElement.dataset.more || document.activeElement.name || document.activeElement.tagName`)); next != "tags" {
		t.Errorf("Tab from the new row goes to %q, not the next Add a row", next)
	}
}

// buttonNames is the accessible name of every button the page's
// accessibility tree holds (Chromium's, as a screen reader gets it).
func (br *browser) buttonNames(tab context.Context) []string {
	br.t.Helper()
	tree, err := chromedp.Call(tab, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		br.t.Fatal(err)
	}
	var names []string
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil || n.Name == nil {
			continue
		}
		var role, name string
		if json.Unmarshal(n.Role.Value, &role) != nil || role != "button" || json.Unmarshal(n.Name.Value, &name) != nil {
			continue
		}
		names = append(names, name)
	}
	return names
}

// TestEveryActionNamesItsItem: a screen reader listing a page's buttons
// (or tabbing to one) hears which item each acts on: the members' and
// invitations' buttons, the webhooks', an agent's "Issue another key",
// each browser's "Send a test" and "Remove" (and what turning this
// browser's notifications on did is said), and the two "Copy" buttons
// of a key shown once, which a keyboard copies and hears "Copied".
func TestEveryActionNamesItsItem(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	ctx := app.AsActor(b.ctx, b.bob.ID)
	if err := b.accounts.AddMemberAsOperator(b.ctx, "beta", b.carol.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"pat@example.test", "quinn@example.test"} {
		if _, err := b.accounts.Invite(ctx, b.bob.ID, "beta", email, app.MemberRoleMember); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.accounts.CreateAgent(ctx, "beta", "Second bot", b.bob.Email); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := b.hooks.CreateWebhook(b.ctx, b.bob.ID, "beta", notifytest.NewWebhookEndpoint(t).URL, []string{string(app.HookRoomAgreed)}); err != nil {
			t.Fatal(err)
		}
	}
	push := notifytest.NewPushEndpoint(t, b.vapidPublic)
	for _, name := range []string{"Firefox on Linux", "Chrome on Android"} {
		dev := push.NewDevice(t, name)
		if _, err := b.notify.Subscribe(b.ctx, b.bob.ID, app.PushSubscriptionInput{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth, Device: name}); err != nil {
			t.Fatal(err)
		}
	}
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	save := locale.English().T("settings.save")
	unique := func(page string, mustSay ...string) {
		t.Helper()
		names := br.buttonNames(bob)
		seen := map[string]int{}
		for _, n := range names {
			seen[n]++
		}
		for n, k := range seen {
			if k > 1 && n != save {
				t.Errorf("%s: %d buttons are all named %q: which is which?", page, k, n)
			}
		}
		for _, want := range mustSay {
			if !slices.Contains(names, want) {
				t.Errorf("%s: no button named %q among %q", page, want, names)
			}
		}
	}
	br.do(bob, "open the members", chromedp.Navigate(b.base+"/accounts/beta/members"), chromedp.WaitVisible(chromedp.CSS("table.members")))
	unique("members", "Change: carol@example.test", "Send again: pat@example.test", "Revoke: quinn@example.test")
	br.do(bob, "open the webhooks", chromedp.Navigate(b.base+"/accounts/beta/webhooks"), chromedp.WaitVisible(chromedp.CSS("table.webhooks")))
	unique("webhooks")
	br.do(bob, "open the settings", chromedp.Navigate(b.base+"/settings"), chromedp.WaitVisible(chromedp.CSS("#tz")))
	unique("settings", "Issue another key: Second bot", "Send a test: Chrome on Android", "Remove: Firefox on Linux")
	// What "Notify me in this browser" did (on, blocked, failed and why)
	// is said where the person is, not only written.
	if said, _ := chromedp.Run(bob, chromedp.Evaluate[bool](`!!document.querySelector('[data-push-state]').closest('[role="status"]')`)); !said {
		t.Error("the browser's notification state changes silently: not in a status region")
	}

	// A key shown once: its two Copy buttons say what they copy, and the
	// keyboard's copy is said.
	br.do(bob, "issue a key with the keyboard", chromedp.Focus(chromedp.CSS(`li[data-agent="Second bot"] form[action$="/keys"] button`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`[data-copy="new-key"]`)))
	unique("a key shown once", "Copy: MCP URL", "Copy: Key")
	br.do(bob, "copy the key with the keyboard", chromedp.Focus(chromedp.CSS(`[data-copy="new-key"]`)), chromedp.KeyEvent(" "))
	br.until(bob, "the copy is said", `document.querySelector('[role="status"][data-live-say]').textContent === `+fmt.Sprintf("%q", locale.English().T("layout.copied")))

	// In Japanese, in its own words and punctuation.
	if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, "ja"); err != nil {
		t.Fatal(err)
	}
	br.do(bob, "open the members in Japanese", chromedp.Navigate(b.base+"/accounts/beta/members"), chromedp.WaitVisible(chromedp.CSS("table.members")))
	unique("members (ja)", "変更：carol@example.test", "無効にする：quinn@example.test")
}

// TestAmountSaysItsCurrency: a money field whose currency is fixed shows
// it beside the amount; a screen reader reads it with the amount (its
// description), as a sighted person sees it, with or without an error.
func TestAmountSaysItsCurrency(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Fee"})
	if err != nil {
		t.Fatal(err)
	}
	pat := br.tab()
	br.do(pat, "open the counter", chromedp.Navigate(open.InviteURL), chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
	br.until(pat, "the page is in the browser's zone", `document.body.dataset.zone === 'Europe/Paris'`)
	br.do(pat, "open the counter", chromedp.Click(chromedp.CSS("details.counter summary")), chromedp.WaitVisible(chromedp.CSS(`[name="f.fee.0.amount"]`)))
	described := func(what, want string) {
		t.Helper()
		node, err := chromedp.Run(pat, chromedp.Evaluate[[]string](`(() => { const e = document.querySelector('[name="f.fee.0.amount"]');
		  return [(e.getAttribute('aria-describedby') || '').split(' ').map(id => document.getElementById(id)).filter(Boolean).map(x => x.textContent.trim()).join(' ')]; })()`))
		if err != nil {
			t.Fatal(err)
		}
		// and as Chromium's accessibility tree gives it
		tree, err := chromedp.Call(pat, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			t.Fatal(err)
		}
		var desc string
		for _, n := range tree.Nodes {
			var name string
			if n.Ignored || n.Name == nil || json.Unmarshal(n.Name.Value, &name) != nil || name != "Amount" || n.Description == nil {
				continue
			}
			_ = json.Unmarshal(n.Description.Value, &desc)
		}
		if len(node) != 1 || !strings.Contains(desc, want) || !strings.Contains(node[0], "EUR") {
			t.Errorf("%s: the amount is described as %q (tree %q), want the currency EUR and %q", what, node, desc, want)
		}
	}
	described("as shown", "EUR")
	br.do(pat, "send a bad amount", chromedp.SetValue(chromedp.CSS(`[name="f.fee.0.amount"]`), "99.999"),
		chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")), chromedp.WaitVisible(chromedp.CSS("#err-fee")))
	described("refused", "at most 2 decimals")
}

// TestRefusedAnswerIsSaidFirst: an answer refused where no field is at
// fault (the request changed under a keyboard user's Confirm) comes back
// with the title saying so, in the reader's language: the first thing a
// screen reader reads of the page, where the error itself comes after the
// room's heading and state. Once the room moves on live, the title goes
// back to the room's.
func TestRefusedAnswerIsSaidFirst(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	for _, l := range []struct{ tag, title string }{{"en", "Error: Refused %s · Taasky"}, {"de", "Fehler: Refused %s · Taasky"}} {
		if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, l.tag); err != nil {
			t.Fatal(err)
		}
		_, tb, roomID, _, _ := b.askedBeta("Refused "+l.tag, 9)
		br.do(bob, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)),
			chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
		br.until(bob, "the page listens", `document.documentElement.dataset.live === 'open'`)
		br.do(bob, "focus confirm", chromedp.Focus(chromedp.CSS(`button[data-answer="confirm"]`)))
		if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "reject", ""); err != nil {
			t.Fatal(err)
		}
		br.until(bob, "the change is told, the form kept", `!!document.querySelector('[data-live-say]').textContent`)
		br.do(bob, "press the old confirm with Enter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`#room-live p.error`)))
		want := fmt.Sprintf(l.title, l.tag)
		if got, _ := chromedp.Run(bob, chromedp.Evaluate[string](`document.title`)); got != want {
			t.Errorf("%s: the refused answer's page is titled %q, want %q", l.tag, got, want)
		}
		br.until(bob, "the refused page listens", `document.documentElement.dataset.live === 'open'`)
		if _, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(9, 11, "office", "25"))); err != nil {
			t.Fatal(err)
		}
		br.until(bob, "the room moves on, the title with it", fmt.Sprintf(`!document.querySelector('#room-live p.error') && document.title === %q`, "Refused "+l.tag+" · Taasky"))
	}
}
