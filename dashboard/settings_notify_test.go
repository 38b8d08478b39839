package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestSettingsNotifications: the settings page shows the human's channels
// and saves them without JavaScript; a browser's push subscription is kept
// per device, tested and removed; nobody removes another's device; the
// delivery log shows the test, as queued.
func TestSettingsNotifications(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	st, _, body := alice.get("/settings")
	for _, want := range []string{`name="email_requests" id="email_requests" checked`, `name="email_notices" id="email_notices" checked`,
		`data-push-key="` + b.vapidPublic + `"`, "No device gets your notifications yet.", "Nothing was sent to you yet."} {
		if st != 200 || !strings.Contains(body, want) {
			t.Fatalf("settings lack %q: %d\n%s", want, st, body)
		}
	}
	// No device yet: no Web Push boxes that look ticked for nothing.
	if strings.Contains(body, `id="push_requests"`) || !strings.Contains(body, "data-push-none") {
		t.Fatalf("push boxes while no device is subscribed:\n%s", body)
	}
	// Email notices off, requests on, push requests on, push notices off.
	st, loc, _ := alice.post("/settings/notifications", url.Values{"email_requests": {"on"}, "push_requests": {"on"}})
	if st != http.StatusSeeOther || loc != "/settings?done=notify#notify-h" {
		t.Fatalf("save: %d %q", st, loc)
	}
	p, err := b.notify.Prefs(b.ctx, b.alice.ID)
	if err != nil || p != (app.NotifyPrefs{EmailRequests: true, PushRequests: true}) {
		t.Fatalf("prefs saved: %+v %v", p, err)
	}
	if _, _, body := alice.get("/settings?done=notify"); !strings.Contains(body, "Your notification choices were saved.") ||
		strings.Contains(body, `id="email_notices" checked`) || !strings.Contains(body, `id="email_requests" checked`) {
		t.Fatalf("settings after saving:\n%s", body)
	}

	// This browser subscribes (what the script posts).
	push := notifytest.NewPushEndpoint(t, b.vapidPublic)
	dev := push.NewDevice(t, "phone")
	sub := url.Values{"endpoint": {dev.Endpoint}, "p256dh": {dev.P256dh}, "auth": {dev.Auth}, "device": {"Firefox on Android"}}
	if st, loc, _ := alice.post("/settings/push", sub); st != http.StatusSeeOther || loc != "/settings?done=push-on#push-h" {
		t.Fatalf("subscribe: %d %q", st, loc)
	}
	bad := url.Values{"endpoint": {dev.Endpoint}, "p256dh": {"short"}, "auth": {dev.Auth}}
	if st, _, body := alice.post("/settings/push", bad); st != http.StatusBadRequest || !strings.Contains(body, "keys.p256dh: a P-256 public key") {
		t.Fatalf("a bad key: %d", st)
	}
	if _, _, body := alice.get("/settings"); !strings.Contains(body, `id="push_requests" checked`) || strings.Contains(body, "data-push-none") {
		t.Fatalf("a device subscribed, and no push boxes:\n%s", body)
	}
	subs, err := b.notify.PushSubscriptions(b.ctx, b.alice.ID)
	if err != nil || len(subs) != 1 || subs[0].Device != "Firefox on Android" {
		t.Fatalf("devices: %+v %v", subs, err)
	}
	id := formatID(subs[0].ID)
	_, _, body = alice.get("/settings")
	if !strings.Contains(body, `data-device="`+id+`" data-endpoint="`+dev.Endpoint+`"`) || !strings.Contains(body, "<strong>Firefox on Android</strong>") {
		t.Fatalf("the device is not listed:\n%s", body)
	}

	// A test push: queued, and in the log (no worker runs here).
	if st, loc, _ := alice.post("/settings/push/test", nil); st != http.StatusSeeOther || loc != "/settings?done=push-test#push-h" {
		t.Fatalf("test push: %d %q", st, loc)
	}
	_, _, body = alice.get("/settings?done=push-test")
	if !strings.Contains(body, "A test notification is on its way") || !regexp.MustCompile(`data-status="queued">\s*<td>[^<]+</td>\s*<td>test</td>\s*<td>Web Push</td>\s*<td>`+regexp.QuoteMeta(hostOf(dev.Endpoint))).MatchString(body) {
		t.Fatalf("the log lacks the test push:\n%s", body)
	}

	// Bob cannot remove Alice's device; Alice can.
	bob := b.client(&b.bob)
	bob.get("/settings")
	if st, _, _ := bob.post("/settings/push/test", url.Values{"id": {id}}); st != http.StatusSeeOther {
		t.Fatalf("bob tests alice's device: %d", st)
	}
	bob.post("/settings/push/remove", url.Values{"id": {id}})
	if subs, _ := b.notify.PushSubscriptions(b.ctx, b.alice.ID); len(subs) != 1 {
		t.Fatal("bob removed alice's device")
	}
	if log, _, _ := b.notify.DeliveryLogPage(b.ctx, b.bob.ID, 10, ""); len(log) != 0 {
		t.Fatalf("bob's test reached a device: %+v", log)
	}
	if st, _, body := alice.post("/settings/push/remove", url.Values{"id": {"x"}}); st != http.StatusBadRequest || !strings.Contains(body, "device: which one?") {
		t.Fatalf("a bad id: %d", st)
	}
	if st, loc, _ := alice.post("/settings/push/remove", url.Values{"id": {id}}); st != http.StatusSeeOther || loc != "/settings?done=push-off#push-h" {
		t.Fatalf("remove: %d %q", st, loc)
	}
	if subs, _ := b.notify.PushSubscriptions(b.ctx, b.alice.ID); len(subs) != 0 {
		t.Fatal("the device is still there")
	}
	if st, loc, _ := alice.post("/settings/push/test", nil); st != http.StatusSeeOther || loc != "/settings?done=push-nothing#push-h" {
		t.Fatalf("test with no device: %d %q", st, loc)
	}
	// The script removes this browser by its endpoint.
	alice.post("/settings/push", sub)
	if st, _, _ := alice.post("/settings/push/remove", url.Values{"endpoint": {dev.Endpoint}}); st != http.StatusSeeOther {
		t.Fatalf("remove by endpoint: %d", st)
	}
	if subs, _ := b.notify.PushSubscriptions(b.ctx, b.alice.ID); len(subs) != 0 {
		t.Fatal("the device is still there after its endpoint was removed")
	}

	// Every form still needs its token.
	if st, _, _ := alice.do(http.MethodPost, "/settings/notifications", url.Values{"email_notices": {"on"}}); st != http.StatusForbidden {
		t.Fatalf("a form without its CSRF token: %d", st)
	}
}

func hostOf(endpoint string) string {
	u, _ := url.Parse(endpoint)
	return u.Host
}

// TestDeliveryLogPages: the log is paged by (created_at, job id): every
// line shows once, none is lost between pages.
func TestDeliveryLogPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	dev := notifytest.NewPushEndpoint(t, b.vapidPublic).NewDevice(t, "laptop")
	if _, err := b.notify.Subscribe(b.ctx, b.alice.ID, app.PushSubscriptionInput{Endpoint: dev.Endpoint, P256dh: dev.P256dh, Auth: dev.Auth}); err != nil {
		t.Fatal(err)
	}
	const n = deliveriesPerPage + 7
	for range n {
		if _, err := b.notify.SendTestPush(b.ctx, b.alice.ID, 0); err != nil {
			t.Fatal(err)
		}
		// The next test is allowed a minute after this one (app.TestPushEvery).
		if _, err := b.pool.Exec(b.ctx, `UPDATE notification_deliveries SET created_at = created_at - interval '61 seconds' WHERE user_id = $1`, b.alice.ID); err != nil {
			t.Fatal(err)
		}
	}
	alice := b.client(&b.alice)
	line := regexp.MustCompile(`data-delivery="(\d+)"`)
	next := regexp.MustCompile(`href="/settings/deliveries\?after=([0-9.]+)" rel="next"`)
	seen := map[string]bool{}
	path, pages := "/settings/deliveries", 0
	for path != "" {
		st, _, body := alice.get(path)
		if st != 200 {
			t.Fatalf("GET %s: %d", path, st)
		}
		pages++
		for _, m := range line.FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Fatalf("job %s shown twice", m[1])
			}
			seen[m[1]] = true
		}
		path = ""
		if m := next.FindStringSubmatch(body); m != nil {
			path = "/settings/deliveries?after=" + m[1]
		}
	}
	if pages != 2 || len(seen) != n {
		t.Fatalf("%d pages, %d lines; want 2 and %d", pages, len(seen), n)
	}
	if _, _, body := alice.get("/settings"); !strings.Contains(body, `<a href="/settings/deliveries">The whole log</a>`) ||
		len(line.FindAllString(body, -1)) != settingsLogLines {
		t.Fatal("the settings page does not show the latest lines and a link to the rest")
	}
	if st, _, body := alice.get("/settings/deliveries?after=nope"); st != http.StatusBadRequest || !strings.Contains(body, "cursor: not a page") {
		t.Fatalf("a bad cursor: %d", st)
	}
}

// TestUnsubscribe: a List-Unsubscribe link shows a button and changes
// nothing; the button (or a mail client's one-click POST, with no cookie
// and no CSRF token) turns email notices off, never requests.
func TestUnsubscribe(t *testing.T) {
	t.Parallel()
	b := setup(t)
	path := strings.TrimPrefix(b.notify.UnsubscribeURL(b.alice.ID), b.base)
	pat := b.client(nil)
	st, _, body := pat.get(path)
	if st != 200 || !strings.Contains(body, "Stop email notices?") || !strings.Contains(body, "never unsubscribed by a link") ||
		!strings.Contains(body, `<form method="post" action="`+path+`">`) {
		t.Fatalf("GET: %d\n%s", st, body)
	}
	if p, _ := b.notify.Prefs(b.ctx, b.alice.ID); p != app.DefaultNotifyPrefs {
		t.Fatal("the GET changed the preferences")
	}
	mailClient := b.client(nil)
	st, _, body = mailClient.do(http.MethodPost, path, url.Values{"List-Unsubscribe": {"One-Click"}})
	if st != 200 || !strings.Contains(body, "Email notices are off") || !strings.Contains(body, "alice@example.test") {
		t.Fatalf("one-click POST: %d\n%s", st, body)
	}
	if p, _ := b.notify.Prefs(b.ctx, b.alice.ID); p.EmailNotices || !p.EmailRequests || !p.PushNotices {
		t.Fatalf("prefs after unsubscribing: %+v", p)
	}
	for _, bad := range []string{"/unsubscribe/x", "/unsubscribe/un_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		if st, _, body := pat.get(bad); st != http.StatusNotFound || !strings.Contains(body, "not valid") {
			t.Errorf("GET %s: %d", bad, st)
		}
		if st, _, _ := pat.do(http.MethodPost, bad, url.Values{}); st != http.StatusNotFound {
			t.Errorf("POST %s: %d", bad, st)
		}
	}
}

// TestServiceWorker: /sw.js is served as a script allowed the whole site.
func TestServiceWorker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	resp, err := b.app.Test(httptest.NewRequest(http.MethodGet, "/sw.js", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	js, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" ||
		resp.Header.Get("Service-Worker-Allowed") != "/" || string(js) != notify.ServiceWorkerJS {
		t.Fatalf("/sw.js: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestAdminJobs: the job queue's UI is for signed-in operators: nobody
// signed in is sent to sign in, anybody else gets 404, and its API takes
// changes only from this origin; its answers are not cached.
func TestAdminJobs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if st, loc, _ := b.client(nil).get("/admin/jobs/"); st != http.StatusSeeOther || loc != "/login?next=%2Fadmin%2Fjobs%2F" {
		t.Fatalf("nobody: %d %q", st, loc)
	}
	alice := b.client(&b.alice)
	for _, path := range []string{"/admin/jobs", "/admin/jobs/", "/admin/jobs/api/jobs"} {
		if st, _, body := alice.get(path); st != http.StatusNotFound || strings.Contains(body, "jobs ui") {
			t.Fatalf("not an operator, GET %s: %d %s", path, st, body)
		}
	}
	if err := b.accounts.SetOperator(b.ctx, "alpha", "alice@example.test", true); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/admin/jobs": "jobs ui: GET /admin/jobs", "/admin/jobs/api/jobs?state=available": "jobs ui: GET /admin/jobs/api/jobs"} {
		if st, _, body := alice.get(path); st != 200 || body != want {
			t.Fatalf("operator, GET %s: %d %q", path, st, body)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/admin/jobs/api/jobs?state=available", nil)
	for k, v := range alice.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := b.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("the jobs' API may be cached: Cache-Control %q", cc)
	}
	post := func(header, value string) int {
		req := httptest.NewRequest(http.MethodPost, "/admin/jobs/api/jobs/cancel", strings.NewReader(`{"ids":["1"]}`))
		req.Header.Set("Content-Type", "application/json")
		if header != "" {
			req.Header.Set(header, value)
		}
		for k, v := range alice.cookies {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		resp, err := b.app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		header, value string
		want          int
	}{{"", "", 403}, {"Origin", "https://evil.example", 403}, {"Sec-Fetch-Site", "cross-site", 403},
		{"Origin", b.base, 200}, {"Sec-Fetch-Site", "same-origin", 200}} {
		if got := post(c.header, c.value); got != c.want {
			t.Errorf("POST with %s %q: %d, want %d", c.header, c.value, got, c.want)
		}
	}
	if err := b.accounts.SetOperator(b.ctx, "alpha", "alice@example.test", false); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := alice.get("/admin/jobs/"); st != http.StatusNotFound {
		t.Fatalf("no longer an operator: %d", st)
	}
}

// TestUnsubscribeInTheReadersLanguage: a List-Unsubscribe link is one
// person's, like a one-tap link: its page speaks their language (their
// setting), in whatever browser it is opened, before and after the
// button. Then the settings show notices off, and turning them on again
// holds.
func TestUnsubscribeInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "de"); err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(b.notify.UnsubscribeURL(b.alice.ID), b.base)
	english := b.client(nil)
	english.lang = "en-US"
	if st, _, body := english.get(path); st != 200 || !strings.Contains(body, `lang="de"`) || strings.Contains(body, "Stop email notices?") {
		t.Errorf("GET in an English browser: %d\n%s", st, body)
	}
	if st, _, body := english.do(http.MethodPost, path, url.Values{"List-Unsubscribe": {"One-Click"}}); st != 200 || !strings.Contains(body, `lang="de"`) || strings.Contains(body, "Email notices are off") {
		t.Errorf("one-click POST in an English browser: %d\n%s", st, body)
	}
	alice := b.client(&b.alice)
	if _, _, body := alice.get("/settings"); !strings.Contains(body, `name="email_notices" id="email_notices">`) {
		t.Errorf("the settings after unsubscribing do not show email notices off")
	}
	if st, _, _ := alice.post("/settings/notifications", url.Values{"email_requests": {"on"}, "email_notices": {"on"}, "push_requests": {"on"}, "push_notices": {"on"}}); st != http.StatusSeeOther && st != 200 {
		t.Fatalf("saving the settings: %d", st)
	}
	if p, _ := b.notify.Prefs(b.ctx, b.alice.ID); p != app.DefaultNotifyPrefs {
		t.Errorf("prefs after turning notices on again: %+v", p)
	}
	if _, _, body := alice.get("/settings"); !strings.Contains(body, `name="email_notices" id="email_notices" checked>`) {
		t.Errorf("the settings after turning notices on again do not show them on")
	}
}

// TestTestPushOnceAMinute: a test push goes to every device the person
// added, each an address they chose, in the queue every tenant's pushes
// and webhooks share; pressing "Send a test" again and again queued
// hundreds of pushes a second (on the running binary: ten presses, 200
// pushes). A second test within a minute is refused, saying when the last
// went and from when another may, and queues nothing; a minute later it
// is sent.
func TestTestPushOnceAMinute(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	alice.get("/settings")
	push := notifytest.NewPushEndpoint(t, b.vapidPublic)
	for _, name := range []string{"phone", "laptop"} {
		dev := push.NewDevice(t, name)
		sub := url.Values{"endpoint": {dev.Endpoint}, "p256dh": {dev.P256dh}, "auth": {dev.Auth}, "device": {name}}
		if st, _, _ := alice.post("/settings/push", sub); st != http.StatusSeeOther {
			t.Fatalf("subscribe: %d", st)
		}
	}
	logged := func() int {
		log, _, err := b.notify.DeliveryLogPage(b.ctx, b.alice.ID, 50, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(log)
	}
	if st, loc, _ := alice.post("/settings/push/test", nil); st != http.StatusSeeOther || loc != "/settings?done=push-test#push-h" {
		t.Fatalf("test push: %d %q", st, loc)
	}
	if n := logged(); n != 2 {
		t.Fatalf("%d pushes logged, want 2", n)
	}
	st, _, body := alice.post("/settings/push/test", nil)
	if st != http.StatusConflict || !regexp.MustCompile(`a test push was sent at [^;]+; see how it went in the delivery log, or send another from `).MatchString(body) {
		t.Fatalf("a second test at once: %d\n%s", st, body)
	}
	if n := logged(); n != 2 {
		t.Fatalf("the refused test queued pushes: %d logged", n)
	}
	// A minute later.
	if _, err := b.pool.Exec(b.ctx, `UPDATE notification_deliveries SET created_at = created_at - interval '61 seconds' WHERE user_id = $1`, b.alice.ID); err != nil {
		t.Fatal(err)
	}
	if st, loc, _ := alice.post("/settings/push/test", nil); st != http.StatusSeeOther || loc != "/settings?done=push-test#push-h" {
		t.Fatalf("a test a minute later: %d %q", st, loc)
	}
	if n := logged(); n != 4 {
		t.Fatalf("%d pushes logged, want 4", n)
	}
}
