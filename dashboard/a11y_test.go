package dashboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/notify/notifytest"
)

// axeSource is axe-core, installed by npm from test/a11y (npm ci --prefix
// test/a11y; .ci/run does). Without it the test skips, except in CI.
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "test", "a11y", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core is not installed: %v (npm ci --prefix test/a11y)", err)
		}
		t.Skipf("axe-core is not installed (npm ci --prefix test/a11y): %v", err)
	}
	return string(b)
}

// axeRun runs axe-core's WCAG 2.1 A and AA rules and its best practices on
// the page and returns the violations of impact serious or critical, one
// line each with up to three of the elements.
const axeRun = `axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})
  .then(r => r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')))`

// audit runs axe-core on the page the tab shows and reports each
// serious or critical violation.
func (br *browser) audit(ctx context.Context, axe, page string) {
	br.t.Helper()
	for _, v := range br.violations(ctx, axe, page) {
		br.t.Errorf("%s: %s", page, v)
	}
}

func (br *browser) violations(ctx context.Context, axe, page string) []string {
	br.t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(c, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
		br.t.Fatalf("%s: inject axe-core: %v", page, err)
	}
	found, err := chromedp.Run(c, chromedp.Evaluate[[]string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		br.t.Fatalf("%s: axe-core: %v", page, err)
	}
	return found
}

// TestAccessibility runs axe-core in Chromium over every page a person
// reads, in every language: signed out, the rooms, a room with a pending
// confirmation, a one-tap link before and after its answer, an
// invitation with and without an error, a person's seat, the settings,
// the delivery log, the unsubscribe page, the page that refuses
// invitations, and an account's pages (first steps, members, settings,
// webhooks and an endpoint's deliveries). No violation of impact serious
// or critical may remain.
func TestAccessibility(t *testing.T) {
	axe := axeSource(t)
	b := setup(t, withOAuth) // the first steps as served, with MCP authorization
	br := newBrowser(t, b)
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	// The audit can fail: a button with no name and an image with no text
	// on a real page are found.
	br.do(bob, "break a page", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(".rooms, .empty, [data-no-account]")),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('main').insertAdjacentHTML('beforeend', '<button></button><img src="/static/none.png">')`))
	if found := br.violations(bob, axe, "a broken page"); len(found) < 2 {
		t.Fatalf("axe-core found %q on a page broken twice", found)
	}
	path := strings.TrimPrefix(b.notify.UnsubscribeURL(b.bob.ID), b.base)
	refuse := strings.TrimPrefix(b.notify.RefuseInvitationsURL("pat@example.test"), b.base)
	endpoint, _, err := b.hooks.CreateWebhook(b.ctx, b.bob.ID, "beta", notifytest.NewWebhookEndpoint(t).URL, []string{string(app.HookRoomAgreed)})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range locale.Languages() {
		t.Run(l.Tag, func(t *testing.T) {
			br := br.on(t)
			if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, l.Tag); err != nil {
				t.Fatal(err)
			}
			stranger := br.tabIn(l.Tag)
			// The stranger's zone is known already: else the invitation's
			// script tells it (Chromium here says Etc/UTC, the page UTC) and
			// reloads the page while axe-core reads it ("Inspected target
			// navigated or closed", seen once).
			if _, err := chromedp.Call(stranger, network.SetCookie, network.SetCookieParams{Name: zoneCookie, Value: "UTC", URL: b.base}); err != nil {
				t.Fatal(err)
			}
			visit := func(tab context.Context, name, url, ready string) {
				br.do(tab, "open "+name, chromedp.Navigate(b.base+url), chromedp.WaitVisible(chromedp.CSS(ready)))
				if lang := br.text(tab, "html"); lang == "" {
					t.Fatalf("%s: empty page", name)
				}
				br.until(tab, name+" is in "+l.Tag, fmt.Sprintf(`document.documentElement.lang === %q`, l.Tag))
				br.audit(tab, axe, l.Tag+" "+name)
			}

			// A room whose human is asked to approve, and its one-tap link.
			_, roomID, token := b.askedToApprove(t, "Kick-off "+l.Tag, `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`, meeting(3, 10, "office", "120"))
			open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Design review"})
			if err != nil {
				t.Fatal(err)
			}

			visit(stranger, "signed out", "/", "main h1")
			visit(stranger, "signed-out page", "/signed-out", "main h1")
			visit(bob, "rooms", "/", ".rooms")
			visit(bob, "room with a pending confirmation", fmt.Sprintf("/rooms/%d", roomID), `button[data-answer="confirm"]`)
			visit(bob, "settings", "/settings", "#tz")
			visit(bob, "delivery log", "/settings/deliveries", "main h1")
			visit(bob, "account's first steps", "/accounts/beta/start", "#start-mcp")
			visit(bob, "members", "/accounts/beta/members", "table.members")
			visit(bob, "account settings", "/accounts/beta/settings", "#account-name")
			visit(bob, "webhooks", "/accounts/beta/webhooks", "#webhook-url")
			visit(bob, "webhook deliveries", fmt.Sprintf("/accounts/beta/webhooks/%d", endpoint.ID), "table.log")
			visit(stranger, "unsubscribe", path, "[data-unsubscribe]")
			visit(stranger, "refuse invitations", refuse, "[data-refuse]")
			visit(stranger, "one-tap", "/c/"+token, `button[data-answer="confirm"]`)
			br.do(stranger, "confirm", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-result="applied"]`)))
			br.audit(stranger, axe, l.Tag+" one-tap answered")
			visit(stranger, "invitation", "/i/"+strings.TrimPrefix(open.InviteURL, b.base+"/i/"), "details.counter summary")
			br.do(stranger, "send a bad amount",
				chromedp.Click(chromedp.CSS("details.counter summary")),
				chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.999"),
				chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
				chromedp.WaitVisible(chromedp.CSS("#err-fee")))
			br.audit(stranger, axe, l.Tag+" invitation with an error")
			br.do(stranger, "fix and send",
				// in the reader's decimal mark (99,90 in German)
				chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), locale.NewPrinter(l.Tag).AmountInput("99.90")),
				chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
				chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
			br.audit(stranger, axe, l.Tag+" person's seat")
		})
	}
}

// TestKeyboardConfirmation: a person confirms a one-tap link with the
// keyboard alone. Tab walks the page in reading order (the skip link
// first, the confirm button before decline), every stop shows its focus,
// and Enter on the confirm button answers.
func TestKeyboardConfirmation(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	tb, _, token := b.askedToApprove(t, "Keyboard", "", meeting(3, 10, "office", "120"))
	tab := br.tab()
	br.do(tab, "open the link", chromedp.Navigate(b.base+"/c/"+token), chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
	// Each stop: what it is, and whether its focus shows (an outline).
	const stop = `(() => { const e = document.activeElement; const s = getComputedStyle(e);
	  return (e.dataset.answer || e.getAttribute('href') || e.tagName.toLowerCase() + ':' + e.textContent.trim().slice(0, 30)) +
	    (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 ? '' : ' (focus not visible)'); })()`
	var stops []string
	for range 30 {
		br.do(tab, "tab", chromedp.KeyEvent("\t"))
		s, err := chromedp.Run(tab, chromedp.Evaluate[string](stop))
		if err != nil {
			t.Fatal(err)
		}
		stops = append(stops, s)
		if s == "confirm" || strings.HasPrefix(s, "confirm ") {
			break
		}
	}
	if len(stops) == 0 || stops[0] != "#main" {
		t.Fatalf("the first stop is not the skip link: %q", stops)
	}
	if last := stops[len(stops)-1]; last != "confirm" {
		t.Fatalf("tabbing never reached the confirm button with its focus visible: %q", stops)
	}
	for _, s := range stops {
		if strings.HasSuffix(s, "(focus not visible)") || s == "decline" {
			t.Errorf("stop %q in %q", s, stops)
		}
	}
	br.do(tab, "answer with Enter", chromedp.KeyEvent("\r"), chromedp.WaitVisible(chromedp.CSS(`[data-result="applied"]`)))
	if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.Approvals.You == nil {
		t.Fatal("Enter on the confirm button did not approve")
	}
	t.Logf("keyboard stops to the confirm button: %q", stops)
}
