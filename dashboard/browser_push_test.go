package dashboard

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/notify"
)

// TestBrowserPushReplacesTheRoomsNotification: Chromium runs the service
// worker /sw.js serves and shows the pushes the push service delivers to
// it (delivered here through DevTools, as a push service would): three
// pushes about one room leave one notification, the newest; a push about
// another room shows beside it.
func TestBrowserPushReplacesTheRoomsNotification(t *testing.T) {
	b := setup(t)
	br := newBrowser(t, b)
	tab := br.tab()
	regs := make(chan serviceworker.RegistrationID, 16)
	if err := chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*serviceworker.EventWorkerRegistrationUpdated); ok {
			for _, r := range e.Registrations {
				if !r.IsDeleted && r.ScopeURL == b.base+"/" {
					select {
					case regs <- r.RegistrationID:
					default:
					}
				}
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(tab, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted,
		Origin: b.base, BrowserContextID: chromedp.FromContext(tab).BrowserContextID}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, serviceworker.Enable, struct{}{}); err != nil {
		t.Fatal(err)
	}
	br.do(tab, "register the service worker", chromedp.Navigate(b.base+"/"),
		chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => navigator.serviceWorker.ready).then(() => true)`, chromedp.EvalAwaitPromise))
	var reg serviceworker.RegistrationID
	select {
	case reg = <-regs:
	case <-time.After(15 * time.Second):
		t.Fatal("no service worker registration for the site")
	}
	push := func(p notify.PushPayload) {
		t.Helper()
		data, _ := json.Marshal(p)
		ctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		if _, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: b.base, RegistrationID: reg, Data: string(data)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, title := range []string{"first request", "second request", "third request"} {
		push(notify.PushPayload{Title: title, Body: "room 7", URL: "/rooms/7", Tag: "taasky-room-7", Kind: notify.KindRequest})
	}
	push(notify.PushPayload{Title: "other room", Body: "room 8", URL: "/rooms/8", Tag: "taasky-room-8", Kind: notify.KindAgreed})
	// The worker shows each push in its own time: read until the last
	// one is there (a loaded machine has taken over 15 s).
	var shown []string
	for end := time.Now().Add(60 * time.Second); ; {
		var err error
		shown, err = chromedp.Run(tab, chromedp.Evaluate[[]string](`navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => n.tag + ": " + n.title).sort())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(shown, "taasky-room-8: other room") || time.Now().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if want := []string{"taasky-room-7: third request", "taasky-room-8: other room"}; len(shown) != 2 || shown[0] != want[0] || shown[1] != want[1] {
		t.Errorf("notifications shown: %q, want %q", shown, want)
	}
}
