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
	shown := func() []string {
		t.Helper()
		ns, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n => n.tag + ": " + n.title).sort())`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return ns
	}
	// push delivers p as a push service would, and waits until the worker
	// shows it. The worker shows each push in its own time (a loaded
	// machine has taken over 15 s), and under CI's load Chromium has lost a
	// push DevTools delivered: as a push service does until the browser
	// takes its message, it is delivered again, at most 3 times, 20 s apart.
	push := func(p notify.PushPayload) {
		t.Helper()
		data, _ := json.Marshal(p)
		for try := 1; ; try++ {
			ctx, cancel := context.WithTimeout(tab, 10*time.Second)
			_, err := chromedp.Call(ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
				Origin: b.base, RegistrationID: reg, Data: string(data)})
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if slices.Contains(shown(), p.Tag+": "+p.Title) {
					return
				}
			}
			if try == 3 {
				t.Fatalf("the push %q was not shown after 3 deliveries: %q", p.Title, shown())
			}
			t.Logf("the push %q not shown within 20 s; delivered again", p.Title)
		}
	}
	for _, title := range []string{"first request", "second request", "third request"} {
		push(notify.PushPayload{Title: title, Body: "room 7", URL: "/rooms/7", Tag: "taasky-room-7", Kind: notify.KindRequest})
	}
	push(notify.PushPayload{Title: "other room", Body: "room 8", URL: "/rooms/8", Tag: "taasky-room-8", Kind: notify.KindAgreed})
	got := shown()
	if want := []string{"taasky-room-7: third request", "taasky-room-8: other room"}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("notifications shown: %q, want %q", got, want)
	}
}
