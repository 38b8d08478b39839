package dashboard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// focusedField says where a refused form left the person, with scripts
// off: the focused element's name, whether it is marked invalid, and the
// text of what describes it (the error).
const focusedField = `(() => { const e = document.activeElement;
  const d = (e.getAttribute('aria-describedby') || '').split(' ').map(id => document.getElementById(id)).filter(Boolean);
  return [e.getAttribute('name') || e.tagName.toLowerCase(), e.getAttribute('aria-invalid') || '', d.map(x => x.textContent.trim()).join(' ')]; })()`

// TestRefusedFormLeadsToTheField: with JavaScript off, a refused form
// (a member's invitation, a webhook's URL, an invitation's counter) comes
// back with the keyboard's focus on the field at fault, marked invalid and
// described by the error, so a person with a keyboard or a screen reader
// lands on what to correct instead of the top of the page.
func TestRefusedFormLeadsToTheField(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	noScript := func(tab context.Context) {
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(tab context.Context, what, name, says string) {
		t.Helper()
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](focusedField))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != name || got[1] != "true" || !strings.Contains(got[2], says) {
			t.Errorf("%s: focus on %q (want %s, invalid, described by %q)", what, got, name, says)
		}
	}

	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	noScript(bob)
	br.do(bob, "invite a member already there", chromedp.Navigate(b.base+"/accounts/beta/members"),
		chromedp.SetValue(chromedp.CSS("#invite-email"), "bob@example.test"),
		chromedp.SetValue(chromedp.CSS("#invite-role"), "admin"),
		chromedp.Click(chromedp.CSS("form[data-invite] button.primary")),
		chromedp.WaitVisible(chromedp.CSS("p.error")))
	check(bob, "members", "email", "already a member")
	if role, err := chromedp.Run(bob, chromedp.Evaluate[string](`document.querySelector("#invite-role").value`)); err != nil || role != "admin" {
		t.Errorf("the refused invitation's role came back as %q (%v), want the one chosen, admin", role, err)
	}

	br.do(bob, "add a webhook over http", chromedp.Navigate(b.base+"/accounts/beta/webhooks"),
		chromedp.SetValue(chromedp.CSS("#webhook-url"), "http://example.com/hooks"),
		chromedp.Click(chromedp.CSS("form[data-add-webhook] button.primary")),
		chromedp.WaitVisible(chromedp.CSS("p.error")))
	check(bob, "webhooks", "url", "https")

	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Design review"})
	if err != nil {
		t.Fatal(err)
	}
	pat := br.tab()
	noScript(pat)
	br.do(pat, "counter with a bad amount", chromedp.Navigate(open.InviteURL),
		chromedp.Click(chromedp.CSS("details.counter summary")),
		chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.999"),
		chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
		chromedp.WaitVisible(chromedp.CSS("#err-fee")))
	check(pat, "invitation", "f.fee.0.amount", "at most 2 decimals")
}

// TestLiveChangesAreSaidPolitely: a live page tells a screen reader that
// it changed through a polite status region, without moving the focus;
// and a part holding what the person is typing is kept as typed (they
// are told the page changed) instead of being swapped under them.
func TestLiveChangesAreSaidPolitely(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	updated, kept := locale.English().T("a11y.live_updated"), locale.English().T("a11y.live_kept")
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Live seat"})
	if err != nil {
		t.Fatal(err)
	}
	pat := br.tab()
	br.do(pat, "open the invitation", chromedp.Navigate(open.InviteURL), chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
	br.until(pat, "the page is in the browser's zone", `document.body.dataset.zone === 'Europe/Paris'`)
	br.do(pat, "counter",
		chromedp.Click(chromedp.CSS("details.counter summary")),
		chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.90"),
		chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
		chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
	if n, err := chromedp.Run(pat, chromedp.Evaluate[int](`document.querySelectorAll('[data-live-say][role="status"]').length`)); err != nil || n != 1 {
		t.Fatalf("the seat page has %d polite status regions (%v), want 1", n, err)
	}
	br.until(pat, "the page listens", `document.documentElement.dataset.live === 'open'`)

	// The inviter counters: the page changes in place and says so.
	v, err := b.rooms.Propose(b.ctx, b.alpha, open.RoomToken, mv("counter", meeting(10, 11, "video", "120")))
	if err != nil {
		t.Fatal(err)
	}
	br.until(pat, "the counter is said", fmt.Sprintf(`!!document.querySelector('details.counter') && document.querySelector('[data-live-say]').textContent === %q`, updated))
	if tag, _ := chromedp.Run(pat, chromedp.Evaluate[string](`document.activeElement.tagName`)); tag != "BODY" {
		t.Errorf("the update moved the focus to %s", tag)
	}

	// Pat types a counter, then looks elsewhere on the page; the inviter
	// withdraws meanwhile: what Pat typed stays, and Pat is told.
	br.do(pat, "type a counter",
		chromedp.Click(chromedp.CSS("details.counter summary")),
		chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "88.00"),
		chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`))
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, open.RoomToken, "cancel", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, v.RoomID, cv.ID, "", true); err != nil {
		t.Fatal(err)
	}
	br.until(pat, "the change is said, the typing kept", fmt.Sprintf(`document.querySelector('[data-live-say]').textContent === %q`, kept))
	if s, _ := chromedp.Run(pat, chromedp.Evaluate[string](`document.querySelector('input[name="f.fee.0.amount"]').value`)); s != "88.00" {
		t.Errorf("what Pat typed became %q", s)
	}
}

// TestLiveChangeKeepsTheFocusOnTheNavigation: a keyboard user resting on
// the header's "Rooms" link keeps the focus there when a change comes
// and the link's waiting count is brought up to date.
func TestLiveChangeKeepsTheFocusOnTheNavigation(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	ta, tb, roomID := b.joined("Focus", nil, "")
	if _, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(3, 10, "office", "120"))); err != nil {
		t.Fatal(err)
	}
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	br.do(bob, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)), chromedp.WaitVisible(chromedp.CSS("#room-live")))
	br.until(bob, "the page listens", `document.documentElement.dataset.live === 'open'`)
	br.do(bob, "focus the rooms link", chromedp.Focus(chromedp.CSS(`.top nav a[href="/"]`)))
	v, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(3, 11, "video", "90")))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "approve", v.TermsOnTable.Options[0].SubjectHash); err != nil {
		t.Fatal(err)
	}
	br.until(bob, "the change arrives", `!!document.body.dataset.refreshed`)
	if got, _ := chromedp.Run(bob, chromedp.Evaluate[string](`document.activeElement.getAttribute('href') || document.activeElement.tagName`)); got != "/" {
		t.Errorf("after a live change the focus is on %q, not the rooms link", got)
	}
}

// TestEverythingIsInALandmark: the offer to show times in the browser's
// zone (a signed-in user still in UTC) is inside a landmark, so a screen
// reader moving by landmarks meets it (axe-core's rule "region").
func TestEverythingIsInALandmark(t *testing.T) {
	axe := axeSource(t)
	b := setup(t)
	br := newBrowser(t, b)
	bob := br.tab()
	br.signIn(bob, "bob@example.test")
	br.do(bob, "open the rooms", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS("[data-zone-offer] button")))
	if _, err := chromedp.Run(bob, chromedp.Evaluate[chromedp.Void](axe)); err != nil {
		t.Fatal(err)
	}
	found, err := chromedp.Run(bob, chromedp.Evaluate[[]string](`axe.run(document, {runOnly: ['region']}).then(r => r.violations.flatMap(v => v.nodes.map(n => n.target.join(' '))))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("outside every landmark: %q", found)
	}
}
