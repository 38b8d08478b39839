package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// The human web works without JavaScript (DESIGN.md §4): these tests drive
// every human journey in Chromium with its scripts off, and read the pages
// a person opens from a mail on a phone.

// noScriptTab is a person's tab whose pages run no script, at a desktop's
// size.
func (br *browser) noScriptTab() context.Context {
	br.t.Helper()
	tab := br.tab()
	if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		br.t.Fatal(err)
	}
	br.do(tab, "a desktop's size", chromedp.EmulateViewport(1280, 900))
	return tab
}

// phoneTab is a person's tab on a phone: 390 by 844 CSS pixels, three
// device pixels to one, touch, scripts on.
func (br *browser) phoneTab() context.Context {
	br.t.Helper()
	tab := br.tab()
	br.do(tab, "a phone's size", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile, chromedp.EmulateTouch))
	return tab
}

// deadControls lists the buttons shown that only a script could make do
// something (type="button", or outside any form) and the links that lead
// nowhere.
const deadControls = `(() => { const out = [];
  document.querySelectorAll('button, a').forEach(e => {
    if (e.getBoundingClientRect().width === 0 || getComputedStyle(e).visibility === 'hidden') return;
    if (e.tagName === 'BUTTON' && (e.type === 'button' || !e.form)) out.push(e.outerHTML.slice(0, 120));
    if (e.tagName === 'A' && (!e.getAttribute('href') || e.getAttribute('href') === '#')) out.push(e.outerHTML.slice(0, 120));
  }); return out; })()`

func (br *browser) noDeadControls(tab context.Context, page string) {
	br.t.Helper()
	got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](deadControls))
	if err != nil {
		br.t.Fatal(err)
	}
	if len(got) > 0 {
		br.t.Errorf("%s without JavaScript shows controls that do nothing: %q", page, got)
	}
}

func (br *browser) eval(tab context.Context, js string) string {
	br.t.Helper()
	s, err := chromedp.Run(tab, chromedp.Evaluate[string](js))
	if err != nil {
		br.t.Fatalf("%s: %v", js, err)
	}
	return s
}

// allTypesSchema has a field of every type a person fills in, a repeated
// one among them.
var allTypesSchema = json.RawMessage(`{"meeting_time":{"type":"timerange","label":"Meeting time"},` +
	`"place":{"type":"enum","label":"Where","values":["office","video"]},` +
	`"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true},` +
	`"note":{"type":"string","label":"Note","optional":true},` +
	`"seats":{"type":"int","label":"Seats","optional":true},` +
	`"day":{"type":"date","label":"Day","optional":true},` +
	`"lunch":{"type":"bool","label":"Lunch","optional":true},` +
	`"tags":{"type":"string","label":"Tags","optional":true,"repeated":true}}`)

// TestJourneysWithoutJavaScript: with scripts off, a signed-in owner
// confirms and declines on a room's page, creates an agent and sees its
// key (with no copy button that cannot copy), saves a time zone, a
// language and notification choices, reads why Web Push needs a script,
// adds a webhook, and reads a receipt; a newcomer signs up, invites a
// colleague, who joins from the mail, and deletes the account (a wrong
// confirmation first); a person without an account
// answers a one-tap link, picks a slot, approves, rejects and counters an
// invitation with every field type (rows of a repeated field left empty
// are left out, and one more row is asked for, which sends nothing: the
// three rows offered once were all a person without a script could fill;
// Enter still sends), and checks a receipt at /verify. Every action's result
// is shown on the page it lands on, and no page shows a control that
// needs a script or says it updates by itself.
func TestJourneysWithoutJavaScript(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)

	t.Run("owner", func(t *testing.T) {
		br := br.on(t)
		bob := br.noScriptTab()
		br.signIn(bob, "bob@example.test")
		for _, answer := range []string{"confirm", "decline"} {
			_, roomID, _ := b.askedToApprove(t, "Room "+answer, "", meeting(3, 10, "office", "120"))
			br.do(bob, answer+" in the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)),
				chromedp.Click(chromedp.CSS(`button[data-answer="`+answer+`"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-answered]`)))
			want := map[string]string{"confirm": "Done: you approved.", "decline": "You declined."}[answer]
			if s := br.text(bob, "[data-answered]"); !strings.Contains(s, want) {
				t.Errorf("after %s: %q", answer, s)
			}
			br.noDeadControls(bob, "the room")
		}

		br.do(bob, "create an agent", chromedp.Navigate(b.base+"/settings"),
			chromedp.SetValue(chromedp.CSS(`#agent-name-beta`), "Travel assistant"),
			chromedp.Click(chromedp.CSS(`#agent-name-beta ~ button`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-key]`)))
		if _, err := b.accounts.AuthenticateAgentKey(b.ctx, br.text(bob, "[data-key]")); err != nil {
			t.Fatalf("the key shown: %v", err)
		}
		br.noDeadControls(bob, "the new agent's key")
		br.do(bob, "save a time zone", chromedp.SetValue(chromedp.CSS(`#tz`), "Asia/Tokyo"),
			chromedp.Click(chromedp.CSS(`form[action="/settings/timezone"] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
		if s := br.text(bob, "p.notice"); s != "Your time zone was saved." {
			t.Errorf("after saving the zone: %q", s)
		}
		br.do(bob, "save a language", chromedp.SetValue(chromedp.CSS(`#lang`), "de"),
			chromedp.Click(chromedp.CSS(`form[action="/settings/language"] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="de"] #lang`)))
		br.do(bob, "and back", chromedp.SetValue(chromedp.CSS(`#lang`), "en"),
			chromedp.Click(chromedp.CSS(`form[action="/settings/language"] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] #lang`)))
		br.do(bob, "turn notices off", chromedp.Navigate(b.base+"/settings"), chromedp.Click(chromedp.CSS(`#email_notices`)),
			chromedp.Click(chromedp.CSS(`form[data-prefs] button.primary`)), chromedp.WaitVisible(chromedp.CSS(`p.notice`)))
		if p, err := b.notify.Prefs(b.ctx, b.bob.ID); err != nil || p.EmailNotices || !p.EmailRequests {
			t.Errorf("prefs: %+v %v", p, err)
		}
		if s := br.text(bob, "[data-push-state]"); !strings.Contains(s, "needs JavaScript") {
			t.Errorf("Web Push without a script says %q", s)
		}
		br.noDeadControls(bob, "the settings")

		br.do(bob, "add a webhook", chromedp.Navigate(b.base+"/accounts/beta/webhooks"),
			chromedp.SetValue(chromedp.CSS("#webhook-url"), "https://hooks.example.test/in"),
			chromedp.Click(chromedp.CSS("form[data-add-webhook] button.primary")),
			chromedp.WaitVisible(chromedp.CSS(`[data-endpoint]`)))
		br.noDeadControls(bob, "the webhooks")
		br.do(bob, "the first steps", chromedp.Navigate(b.base+"/accounts/beta/start"), chromedp.WaitVisible(chromedp.CSS(`[data-mcp-url]`)))
		br.noDeadControls(bob, "the first steps")

		id := b.agreed()
		br.do(bob, "the receipt", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d/receipt", b.base, id)), chromedp.WaitVisible(chromedp.CSS("main h1")))
		br.noDeadControls(bob, "the receipt")
	})

	t.Run("person without an account", func(t *testing.T) {
		br := br.on(t)
		_, _, token := b.askedToApprove(t, "One-tap", "", meeting(5, 10, "office", "120"))
		pat := br.noScriptTab()
		br.do(pat, "open the one-tap link", chromedp.Navigate(b.base+"/c/"+token), chromedp.WaitVisible(chromedp.CSS(`button[data-answer="confirm"]`)))
		br.noDeadControls(pat, "the one-tap link")
		br.do(pat, "confirm", chromedp.Click(chromedp.CSS(`button[data-answer="confirm"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-result="applied"]`)))

		slots, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Coffee", Slots: []json.RawMessage{
			json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`),
			json.RawMessage(`{"start":"2026-12-08T15:00:00+01:00","end":"2026-12-08T15:30:00+01:00"}`)}})
		if err != nil {
			t.Fatal(err)
		}
		br.do(pat, "pick a slot", chromedp.Navigate(slots.InviteURL), chromedp.Click(chromedp.CSS(`button[data-pick="1"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
		br.noDeadControls(pat, "the person's seat")
		// Without a script the page stays as it is: it does not say it
		// updates by itself.
		if s := br.eval(pat, `document.querySelector('main').innerText`); !strings.Contains(s, "Waiting for Alpha Studio.") || strings.Contains(s, "updates by itself") {
			t.Errorf("the seat without a script says %q", s)
		}

		for _, verdict := range []string{"approve", "reject", "counter"} {
			open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: allTypesSchema, Subject: meeting(10, 10, "office", "150"), Title: "Design " + verdict})
			if err != nil {
				t.Fatal(err)
			}
			p := br.noScriptTab()
			br.do(p, "open the invitation", chromedp.Navigate(open.InviteURL), chromedp.WaitVisible(chromedp.CSS("details.counter summary")))
			br.noDeadControls(p, "the invitation")
			want := map[string]string{"approve": "awaiting", "reject": "closed", "counter": "awaiting"}[verdict]
			switch verdict {
			case "approve":
				br.do(p, "approve", chromedp.Click(chromedp.CSS(`button[form="pick-answer"]`)), chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
			case "reject":
				br.do(p, "reject", chromedp.Click(chromedp.CSS(`form.reject button`)), chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
			case "counter":
				br.do(p, "counter with every field", chromedp.Click(chromedp.CSS("details.counter summary")),
					chromedp.SetValue(chromedp.CSS(`[name="f.meeting_time.0.start"]`), "2026-12-11T14:00"),
					chromedp.SetValue(chromedp.CSS(`[name="f.meeting_time.0.end"]`), "2026-12-11T15:00"),
					chromedp.SetValue(chromedp.CSS(`[name="f.meeting_time.0.zone"]`), "Europe/Berlin"),
					chromedp.SetValue(chromedp.CSS(`[name="f.place.0.v"]`), "video"),
					chromedp.SetValue(chromedp.CSS(`[name="f.fee.0.amount"]`), "99.90"),
					chromedp.SetValue(chromedp.CSS(`[name="f.note.0.v"]`), "bring slides"),
					chromedp.SetValue(chromedp.CSS(`[name="f.seats.0.v"]`), "4"),
					chromedp.SetValue(chromedp.CSS(`[name="f.day.0.v"]`), "2026-12-11"),
					chromedp.SetValue(chromedp.CSS(`[name="f.lunch.0.v"]`), "yes"),
					chromedp.SetValue(chromedp.CSS(`[name="f.tags.0.v"]`), "a"),
					chromedp.SetValue(chromedp.CSS(`[name="f.tags.2.v"]`), "c"),
					// three rows are offered; a fourth is asked for, and
					// nothing is sent yet
					chromedp.Click(chromedp.CSS(`button[data-more="tags"]`)),
					chromedp.WaitVisible(chromedp.CSS(`details.counter[open] [name="f.tags.3.v"]`)))
				if r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken); err != nil || r.Round != 1 {
					t.Fatalf("asking for a row answered: %v %+v", err, r)
				}
				if s := br.eval(p, `[...document.querySelectorAll('.has-error, [aria-invalid], p.error')].map(e => e.textContent).join('|') + document.querySelector('[name="f.fee.0.amount"]').value`); s != "99.90" {
					t.Errorf("after asking for a row, the form says %q (want no error and the values typed)", s)
				}
				// Enter in a field sends the form, not another row.
				br.do(p, "fill the fourth row and send with Enter",
					chromedp.SetValue(chromedp.CSS(`[name="f.tags.3.v"]`), "d"),
					chromedp.Click(chromedp.CSS(`[name="f.seats.0.v"]`)), chromedp.KeyEvent("\r"),
					chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
			}
			r, err := b.rooms.Read(b.ctx, b.alpha, open.RoomToken)
			if err != nil || string(r.State) != want {
				t.Fatalf("%s: the room is %s (%v), want %s", verdict, r.State, err, want)
			}
			if verdict == "counter" {
				const terms = `{"day":"2026-12-11","fee":{"amount":"99.90","currency":"EUR"},"lunch":true,` +
					`"meeting_time":{"end":"2026-12-11T14:00:00Z","start":"2026-12-11T13:00:00Z"},"note":"bring slides","place":"video","seats":4,"tags":["a","c","d"]}`
				if got := string(r.TermsOnTable.Options[0].Terms); got != terms || r.TermsOnTable.By != "them" {
					t.Errorf("the counter tabled %s by %s, want %s", got, r.TermsOnTable.By, terms)
				}
			}
		}

		br.do(pat, "verify a receipt", chromedp.Navigate(b.base+"/verify"), chromedp.SetValue(chromedp.CSS("#receipt"), "not a receipt"),
			chromedp.Click(chromedp.CSS("button[data-verify]")), chromedp.WaitVisible(chromedp.CSS(`[data-verdict="invalid"]`)))
	})

	t.Run("team", func(t *testing.T) {
		br := br.on(t)
		smtp := b.inviteMails(t)
		nina := br.noScriptTab()
		br.signInTyping(nina, "/login?next=/", "nina@example.test")
		br.do(nina, "sign up", chromedp.Click(chromedp.CSS(`[data-no-account] a[href="/signup"]`)),
			chromedp.WaitVisible(chromedp.CSS(`form[data-signup]`)),
			chromedp.SetValue(chromedp.CSS(`#signup-name`), "Nina Studio"),
			chromedp.Click(chromedp.CSS(`form[data-signup] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-mcp-url]`)))
		br.noDeadControls(nina, "the first steps")
		br.do(nina, "invite omar", chromedp.Navigate(b.base+"/accounts/nina-studio/members"),
			chromedp.SetValue(chromedp.CSS(`#invite-email`), "omar@example.test"),
			chromedp.Click(chromedp.CSS(`form[data-invite] button.primary`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-invitation="omar@example.test"][data-status="pending"]`)))
		br.noDeadControls(nina, "the members")
		_, link := joinLinkIn(t, smtp.Wait(t, 1, 15*time.Second)[0])
		omar := br.noScriptTab()
		br.do(omar, "omar accepts", chromedp.Navigate(link), chromedp.Click(chromedp.CSS(`a[href^="/login?next=/join/"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#email`)), chromedp.SetValue(chromedp.CSS(`#email`), "omar@example.test"),
			chromedp.Click(chromedp.CSS(`form:last-of-type button`)), chromedp.WaitVisible(chromedp.CSS(`form[data-join]`)),
			chromedp.Click(chromedp.CSS(`form[data-join] button`)), chromedp.WaitVisible(chromedp.CSS(`[data-mcp-url]`)))
		if n := len(b.mustMembers("nina-studio")); n != 2 {
			t.Fatalf("%d members after omar joined", n)
		}
		br.do(nina, "delete with a wrong slug", chromedp.Navigate(b.base+"/accounts/nina-studio/settings"),
			chromedp.SetValue(chromedp.CSS(`#delete-confirm`), "nina"),
			chromedp.Click(chromedp.CSS(`[data-delete-account] button.danger`)), chromedp.WaitVisible(chromedp.CSS(`#delete-error`)))
		br.do(nina, "delete the account", chromedp.SetValue(chromedp.CSS(`#delete-confirm`), "nina-studio"),
			chromedp.Click(chromedp.CSS(`[data-delete-account] button.danger`)), chromedp.WaitVisible(chromedp.CSS(`[data-account-deleted]`)))
		b.workDeletions(t)
		b.waitAccountGone(t, "nina-studio")
		if n := len(b.mustMembers("nina-studio")); n != 0 {
			t.Fatalf("%d members after the deletion", n)
		}
	})
}

// longWord is what the other side may write where a line has no room for
// it: a 130-character URL (a title holds 120 characters).
var longWord = "https://example.test/" + strings.Repeat("a1b2c3d4e5", 11)

// TestPhonePagesWrapLongWords: on a phone (390 CSS pixels wide, touch,
// scripts on), a long unbroken word from the other side, a URL in a
// room's title and in a text field, wraps on every page it shows on (the
// rooms, a room, a one-tap link, an invitation, a person's seat) instead
// of widening the page: a room's title once pushed the rooms list and
// every page's heading off the screen, and an invitation's title widened
// its page even on a desktop. Where the
// browser can copy, the copy buttons show, and a person's seat says it
// updates by itself once it does.
func TestPhonePagesWrapLongWords(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	subject := json.RawMessage(`{"meeting_time":{"start":"2026-12-10T10:00:00+01:00","end":"2026-12-10T10:30:00+01:00"},"place":"office",` +
		`"note":"` + longWord + `","tags":["` + longWord + `"]}`)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: allTypesSchema, Subject: subject, Title: longWord[:120]})
	if err != nil {
		t.Fatal(err)
	}
	_, roomID, token := b.askedToApprove(t, longWord[:120], "", meeting(3, 10, "office", "120"))
	bob := br.phoneTab()
	br.signIn(bob, "bob@example.test")
	pat := br.phoneTab()
	check := func(tab context.Context, name, url, ready string) {
		t.Helper()
		br.do(tab, "open "+name, chromedp.Navigate(b.base+url), chromedp.WaitVisible(chromedp.CSS(ready)),
			chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details').forEach(d => d.open = true)`))
		got, err := chromedp.Run(tab, chromedp.Evaluate[[]string](overflowing))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			t.Errorf("%s is wider than the screen: %q", name, got)
			br.shot(tab, "phone-"+strings.ReplaceAll(name, " ", "-"))
		}
	}
	check(bob, "the rooms", "/", ".rooms")
	check(bob, "the room", fmt.Sprintf("/rooms/%d", roomID), `button[data-answer="confirm"]`)
	check(pat, "the one-tap link", "/c/"+token, `button[data-answer="confirm"]`)
	check(pat, "the invitation", "/i/"+open.InviteCode, "details.counter summary")
	br.do(pat, "approve", chromedp.Click(chromedp.CSS(`button[form="pick-answer"]`)), chromedp.WaitVisible(chromedp.CSS(`#seat-link`)))
	check(pat, "the person's seat", strings.TrimPrefix(br.text(pat, "#seat-link"), b.base), "#seat-live")
	br.until(pat, "the seat says it updates by itself once it does",
		`document.documentElement.dataset.live === 'open' && document.querySelector('main').innerText.includes('This page updates by itself.')`)
	br.do(bob, "the first steps", chromedp.Navigate(b.base+"/accounts/beta/start"), chromedp.WaitVisible(chromedp.CSS(`button[data-copy="start-mcp"]`)))

	// On a desktop, without a script, the invitation's title wraps too.
	again, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: allTypesSchema, Subject: subject, Title: longWord[:120]})
	if err != nil {
		t.Fatal(err)
	}
	desk := br.noScriptTab()
	check(desk, "the invitation on a desktop", "/i/"+again.InviteCode, "details.counter summary")
}
