package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/golden"
	"github.com/taasky/taasky/negotiation"
)

// The browser tests drive Debian's chromium (headless) through the real
// pages: sign-in through the development OIDC provider, a room that moves
// live when the other agent counters, an approval confirmed on the card,
// an invitation answered by a person without an agent, a counter form
// with a bad value, and a one-tap link used twice. Screenshots go to
// docs/screenshots/ with -update (go test ./dashboard -run
// 'Browser|Screenshots' -update rewrites them all), to TAASKY_SCREENSHOTS
// if set, else to the test's temporary folder.

type browser struct {
	t      *testing.T
	b      *bundle
	alloc  context.Context
	shots  string
	cancel *[]context.CancelFunc
}

// on is the browser reporting to t (a subtest).
func (br *browser) on(t *testing.T) *browser {
	c := *br
	c.t = t
	return &c
}

func newBrowser(t *testing.T, b *bundle) *browser {
	path := os.Getenv("CHROMIUM")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on this machine: .ci/run must install it")
		}
		t.Skip("no chromium on this machine (apt-get install chromium; .ci/run does)")
	}
	shots := os.Getenv("TAASKY_SCREENSHOTS")
	if golden.Update() {
		shots = filepath.Join("..", "docs", "screenshots")
	}
	if shots == "" {
		shots = t.TempDir()
	} else if abs, err := filepath.Abs(shots); err == nil {
		shots = abs
	}
	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1000, 1000))
	root, cancelRoot := chromedp.NewContext(alloc)
	if err := chromedp.Do(root); err != nil { // starts the one browser process
		cancelRoot()
		cancel()
		t.Fatalf("start chromium: %v", err)
	}
	// alloc is, from here on, the running browser: tabs derive from it.
	br := &browser{t: t, b: b, alloc: root, shots: shots, cancel: &[]context.CancelFunc{cancel, cancelRoot}}
	t.Cleanup(func() {
		for i := len(*br.cancel) - 1; i >= 0; i-- {
			(*br.cancel)[i]()
		}
	})
	return br
}

// tab opens a tab in a browser context of its own (its own cookies): one
// person.
func (br *browser) tab() context.Context {
	tab, cancel2 := chromedp.NewContext(br.alloc, chromedp.WithNewBrowserContext())
	*br.cancel = append(*br.cancel, cancel2)
	// The first run of a context creates its tab, which lives as long as
	// that run's context: never a timed one.
	if err := chromedp.Do(tab); err != nil {
		br.t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Europe/Paris"}); err != nil {
		br.t.Fatal(err)
	}
	return tab
}

// tabIn is a tab whose browser asks for pages in lang (Accept-Language).
func (br *browser) tabIn(lang string) context.Context {
	tab := br.tab()
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		br.t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": lang}}); err != nil {
		br.t.Fatal(err)
	}
	return tab
}

// do runs steps with a time limit.
func (br *browser) do(ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	br.t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		br.shot(ctx, "failed-"+strings.ReplaceAll(what, " ", "-"))
		br.t.Fatalf("%s: %v", what, err)
	}
}

// text reads the text of the first element matching css.
func (br *browser) text(ctx context.Context, css string) string {
	br.t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		br.t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

// until waits for a JavaScript condition to hold on the page.
func (br *browser) until(ctx context.Context, what, js string) {
	br.t.Helper()
	br.do(ctx, what, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(15*time.Second))(ctx, t)
		return err
	}))
}

func (br *browser) shot(ctx context.Context, name string) {
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	buf, err := chromedp.Run(c, chromedp.FullScreenshot(100))
	if err != nil {
		br.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(br.shots, name+".png"), buf, 0o644); err != nil {
		br.t.Logf("screenshot %s: %v", name, err)
	}
}

// signIn signs a person in through the development provider's login page,
// in two steps each with do's time limit: a sign-in is four page loads
// across two servers, which a loaded CI machine (every package's tests
// at once, under -race) once took more than 20 seconds over, in a
// browser's first tab.
func (br *browser) signIn(ctx context.Context, email string) {
	br.do(ctx, "open the sign-in page for "+email,
		chromedp.Navigate(br.b.base+"/"),
		chromedp.Click(chromedp.CSS(`a[href^="/login"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-email="`+email+`"]`)),
	)
	br.do(ctx, "sign in as "+email,
		chromedp.Click(chromedp.CSS(`button[data-email="`+email+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)),
	)
}

func TestBrowser(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	for _, u := range []app.User{b.alice, b.bob} {
		if err := b.accounts.SetUserTimeZone(b.ctx, u.ID, "Europe/Paris"); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("live counter and confirm on the card", func(t *testing.T) {
		br := br.on(t)
		bobTab := br.tab()
		br.signIn(bobTab, "bob@example.test")
		ta, tb, roomID := b.joined("Kick-off meeting", nil, `{"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`)
		b.joined("Quarterly review", nil, "")
		if _, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("offer", meeting(3, 10, "office", "120"))); err != nil {
			t.Fatal(err)
		}
		if _, err := b.rooms.Propose(b.ctx, b.beta, tb, mv("counter", meeting(3, 11, "video", "90"))); err != nil {
			t.Fatal(err)
		}
		br.do(bobTab, "open the rooms list", chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(".rooms")))
		br.shot(bobTab, "rooms")
		page := fmt.Sprintf("%s/rooms/%d", b.base, roomID)
		br.do(bobTab, "open the room", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("[data-round]")))
		if r := br.text(bobTab, "#room-live [data-round]"); r != "2" {
			t.Fatalf("round before the counter: %q", r)
		}
		br.until(bobTab, "the page listens", `document.documentElement.dataset.live === 'open'`)
		br.do(bobTab, "mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
		// Alpha's agent counters, from outside the browser.
		v, err := b.rooms.Propose(b.ctx, b.alpha, ta, mv("counter", meeting(3, 14, "video", "95")))
		if err != nil {
			t.Fatal(err)
		}
		br.until(bobTab, "the counter shows live", `document.querySelector('#room-live [data-round]').textContent === '3' && window.notReloaded === true`)
		// Bob's agent asks him to approve: the request shows live too.
		hash := v.TermsOnTable.Options[0].SubjectHash
		if _, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, tb, "approve", hash); err != nil {
			t.Fatal(err)
		}
		br.until(bobTab, "the request shows live", `!!document.querySelector('button[data-answer="confirm"]') && window.notReloaded === true`)
		br.shot(bobTab, "room-confirm")
		br.do(bobTab, "confirm on the card", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-answered="applied"]`)))
		if s := br.text(bobTab, "[data-answered]"); !strings.Contains(s, "Done: you approved.") {
			t.Fatalf("after confirming: %q", s)
		}
		// Alpha's human approves the same terms: the room is agreed, live.
		cvA, _, err := b.rooms.RequestConfirmation(b.ctx, b.alpha, ta, "approve", hash)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.rooms.DecideAsOwner(b.ctx, b.alice.ID, roomID, cvA.ID, hash, true); err != nil {
			t.Fatal(err)
		}
		br.until(bobTab, "the agreement shows live", `!!document.querySelector('[data-state="agreed"]')`)
		br.shot(bobTab, "room-agreed")
		if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.State != negotiation.StateAgreed {
			t.Fatalf("room state: %s", r.State)
		}
	})

	t.Run("invitation answered by a person", func(t *testing.T) {
		br := br.on(t)
		open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Coffee next week?", Slots: []json.RawMessage{
			json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
			json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`),
			json.RawMessage(`{"start":"2026-12-09T11:00:00+01:00","end":"2026-12-09T11:30:00+01:00"}`)}})
		if err != nil {
			t.Fatal(err)
		}
		pat := br.tab()
		br.do(pat, "open the invitation", chromedp.EmulateViewport(420, 900), chromedp.Navigate(open.InviteURL),
			chromedp.WaitVisible(chromedp.CSS(`button[data-pick="1"]`)))
		br.until(pat, "the page is in the browser's zone", `document.body.dataset.zone === 'Europe/Paris'`)
		br.shot(pat, "invitation")
		br.do(pat, "pick a slot", chromedp.Click(chromedp.CSS(`button[data-pick="1"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
		br.shot(pat, "invitation-answered")
		r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
		if err != nil || r.Approvals.Them == nil || r.State != negotiation.StateAwaiting {
			t.Fatalf("room after the pick: %v %+v", err, r)
		}
		if !strings.Contains(br.text(pat, "#seat-live .card"), "Tue 8 Dec 2026, 15:00–15:30 (Europe/Paris") {
			t.Fatal("the picked slot is not shown in the person's zone")
		}
	})

	t.Run("counter form with a bad value", func(t *testing.T) {
		br := br.on(t)
		open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10, 10, "office", "150"), Title: "Design review"})
		if err != nil {
			t.Fatal(err)
		}
		pat := br.tab()
		br.do(pat, "open the counter form", chromedp.EmulateViewport(420, 900), chromedp.Navigate(open.InviteURL),
			chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
		br.until(pat, "the page is in the browser's zone", `document.body.dataset.zone === 'Europe/Paris'`)
		br.do(pat, "send a bad amount",
			chromedp.Click(chromedp.CSS("details.counter summary")),
			chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.999"),
			chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
			chromedp.WaitVisible(chromedp.CSS("#err-fee")))
		if s := br.text(pat, "#field-fee #err-fee"); !strings.Contains(s, "Fee: EUR has at most 2 decimals") {
			t.Fatalf("error beside the fee: %q", s)
		}
		br.do(pat, "scroll to the error", chromedp.Evaluate[chromedp.Void](`document.getElementById('field-fee').scrollIntoView()`))
		br.shot(pat, "counter-error")
		br.do(pat, "fix and send",
			chromedp.SetValue(chromedp.CSS(`input[name="f.fee.0.amount"]`), "99.90"),
			chromedp.Click(chromedp.CSS("details.counter form.terms button.primary")),
			chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
		if r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken); err != nil || r.Round != 2 || r.TermsOnTable.By != "them" {
			t.Fatalf("room after the counter: %v %+v", err, r)
		}
	})

	t.Run("one-tap link used twice", func(t *testing.T) {
		br := br.on(t)
		tb, _, token := b.askedToApprove(t, "Contract renewal", "", meeting(11, 16, "video", "40"))
		first, second := br.tab(), br.tab()
		for _, tab := range []context.Context{first, second} {
			br.do(tab, "open the link", chromedp.EmulateViewport(420, 900), chromedp.Navigate(b.base+"/c/"+token),
				chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
		}
		if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.PendingConfirmation == nil || r.Approvals.You != nil {
			t.Fatal("opening the link changed the room")
		}
		br.shot(first, "onetap")
		br.do(first, "confirm", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-result="applied"]`)))
		br.do(second, "confirm again", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-refused]`)))
		if s := br.text(second, "[data-refused]"); !strings.Contains(s, "this link was used already") {
			t.Fatalf("second use: %q", s)
		}
		br.shot(second, "onetap-second-use")
		if r, _ := b.rooms.Read(b.ctx, b.beta, tb); r.Approvals.You == nil {
			t.Fatal("the confirmation was not applied")
		}
	})

	t.Run("settings create an agent", func(t *testing.T) {
		br := br.on(t)
		alice := br.tab()
		br.signIn(alice, "alice@example.test")
		br.do(alice, "create an agent", chromedp.Navigate(b.base+"/settings"),
			chromedp.SetValue(chromedp.CSS(`#agent-name-alpha`), "Travel assistant"),
			chromedp.Click(chromedp.CSS(`#agent-name-alpha ~ button`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-key]`)))
		key := br.text(alice, "[data-key]")
		if _, err := b.accounts.AuthenticateAgentKey(b.ctx, key); err != nil {
			t.Fatalf("the key shown: %v", err)
		}
		br.shot(alice, "settings-new-agent")
	})

	t.Run("settings turn email notices off", func(t *testing.T) {
		br := br.on(t)
		carol := br.tab()
		br.signIn(carol, "carol@example.test")
		br.do(carol, "open the settings", chromedp.Navigate(b.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`#email_notices`)))
		// The script registered /sw.js and says where this browser stands.
		br.until(carol, "the push box is enhanced", `document.querySelector('[data-push-state]').textContent.indexOf('does not get your notifications') >= 0 && !document.querySelector('[data-push-subscribe]').hidden`)
		br.do(carol, "turn notices off",
			chromedp.Click(chromedp.CSS(`#email_notices`)),
			chromedp.Click(chromedp.CSS(`form[data-prefs] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
		if s := br.text(carol, "p.notice"); !strings.Contains(s, "Your notification choices were saved.") {
			t.Fatalf("after saving: %q", s)
		}
		br.shot(carol, "settings-notifications")
		p, err := b.notify.Prefs(b.ctx, b.carol.ID)
		if err != nil || p.EmailNotices || !p.EmailRequests || !p.PushRequests || !p.PushNotices {
			t.Fatalf("prefs: %+v %v", p, err)
		}
	})
}
