package dashboard

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/app"
)

// signInAs signs a browser that says it is userAgent in as email through
// the development issuer: a client with its own cookie jar.
func (b *bundle) signInAs(t *testing.T, email, userAgent string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Transport: uaTransport(userAgent)}
	at, id := oidcStart(t, b, browser, "/settings")
	resp, err := browser.PostForm(at, url.Values{"id": {id}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/settings" {
		t.Fatalf("after the sign-in: %s", resp.Request.URL)
	}
	return browser
}

type uaTransport string

func (ua uaTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", string(ua))
	return http.DefaultTransport.RoundTrip(r)
}

// getPage GETs path with browser, not following a redirect: the status, the
// Location and the body.
func getPage(t *testing.T, browser *http.Client, base, path string) (int, string, string) {
	t.Helper()
	nofollow := *browser
	nofollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := nofollow.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

const (
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	safariIPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	edgeOnWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"
)

// TestSignOutEndsThisBrowserOnly: Alice signs in on a library computer and
// on her phone, each its own cookie jar, and signs out of the library's:
// her phone stays signed in. Before, a sign-out ended every session of
// the person (it raised their session epoch), and the phone was sent to
// sign in again. Settings lists where she is signed in, each browser
// named, this one marked.
func TestSignOutEndsThisBrowserOnly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	library := b.signInAs(t, "alice@example.test", edgeOnWindows)
	phone := b.signInAs(t, "alice@example.test", safariIPhone)
	st, _, body := getPage(t, phone, b.base, "/settings")
	if st != http.StatusOK || !strings.Contains(body, "Where you are signed in") || !strings.Contains(body, "Edge on Windows") ||
		!strings.Contains(body, "Safari on iOS") {
		t.Fatalf("the phone's settings: %d\n%s", st, body)
	}
	if this := regexp.MustCompile(`(?s)<li data-session="\d+" aria-current="true">\s*<strong>([^<]*)</strong>`).FindAllStringSubmatch(body, -1); len(this) != 1 || this[0][1] != "Safari on iOS" {
		t.Errorf("this device, as the phone's settings mark it: %q", this)
	}
	_, _, body = getPage(t, library, b.base, "/settings")
	token := csrfInput.FindStringSubmatch(body)
	resp, err := library.PostForm(b.base+"/logout", url.Values{csrfField: {token[1]}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/signed-out" {
		t.Fatalf("the library's sign-out ended at %s", resp.Request.URL)
	}
	if st, loc, _ := getPage(t, library, b.base, "/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("the library computer after its sign-out: %d %q, want sent to sign in", st, loc)
	}
	st, _, body = getPage(t, phone, b.base, "/settings")
	if st != http.StatusOK || strings.Contains(body, "Edge on Windows") || !strings.Contains(body, "You are signed in on this device only.") {
		t.Errorf("the phone after the library's sign-out: %d\n%s", st, body)
	}
}

// TestEndAnotherSession: Bob lost his phone, which has a room's page and
// his rooms list open, live. From his laptop's Settings he signs the
// phone out: its open live pages end at once saying he was signed out,
// and its next request is sent to sign in; the laptop stays. A bad or
// ended session is refused, naming the field, changing nothing. "Sign
// out everywhere else" ends every other one.
func TestEndAnotherSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, roomID, _, _ := b.askedBeta("Lost phone", 3)
	laptop := b.client(&b.bob)
	phone := b.sealedSession(b.dash, b.bob, app.SessionDevice{Browser: "Safari", Platform: "iOS"})
	room, all := b.openLiveWith(t, phone, fmt.Sprintf("/rooms/%d/events", roomID)), b.openLiveWith(t, phone, "/events")

	st, _, body := laptop.get("/settings")
	m := regexp.MustCompile(`<li data-session="(\d+)">\s*<strong>Safari on iOS</strong>`).FindStringSubmatch(body)
	if st != http.StatusOK || m == nil {
		t.Fatalf("the laptop's settings: %d\n%s", st, body)
	}
	if st, _, body := laptop.post("/settings/sessions/end", url.Values{"id": {"phone"}}); st != http.StatusBadRequest ||
		!strings.Contains(body, "session: which one? (a session from the list)") {
		t.Errorf("a bad id: %d\n%s", st, body)
	}
	if st, loc, _ := laptop.post("/settings/sessions/end", url.Values{"id": {m[1]}}); st != http.StatusSeeOther || loc != "/settings?done=session-ended#sessions-h" {
		t.Fatalf("ending the phone: %d %q", st, loc)
	}
	for name, s := range map[string]liveConn{"room": room, "rooms list": all} {
		said := until(t, s, "0")
		if !strings.Contains(said, "event: gone\n") || !strings.Contains(said, `"why":"`+goneSignedOut+`"`) {
			t.Errorf("the phone's %s stream ended without saying it was signed out:\n%s", name, said)
		}
	}
	lost := b.client(nil)
	lost.cookies[sessionCookie] = phone
	if st, loc, _ := lost.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("the phone's next request: %d %q, want sent to sign in", st, loc)
	}
	if st, _, body := laptop.post("/settings/sessions/end", url.Values{"id": {m[1]}}); st != http.StatusNotFound ||
		!strings.Contains(body, "session: that session has ended already") {
		t.Errorf("ending it again: %d\n%s", st, body)
	}
	st, _, body = laptop.get("/settings?done=session-ended")
	if st != http.StatusOK || !strings.Contains(body, "That device is signed out.") || strings.Contains(body, "Safari on iOS") {
		t.Errorf("the laptop after: %d\n%s", st, body)
	}

	// Two more, then every other one.
	others := []*client{b.client(&b.bob), b.client(&b.bob)}
	if st, loc, _ := laptop.post("/settings/sessions/end-others", nil); st != http.StatusSeeOther || loc != "/settings?done=sessions-ended#sessions-h" {
		t.Fatalf("sign out everywhere else: %d %q", st, loc)
	}
	for i, o := range others {
		if st, _, _ := o.get("/settings"); st != http.StatusSeeOther {
			t.Errorf("other session %d after \"everywhere else\": %d", i, st)
		}
	}
	if st, _, body := laptop.get("/settings"); st != http.StatusOK || !strings.Contains(body, "You are signed in on this device only.") {
		t.Errorf("the laptop after \"everywhere else\": %d", st)
	}
}

// TestCookieOfTheBuildBeforeIsRefused: a session cookie of the build
// before sessions had rows (a user id and an end, no token), sealed with
// the same key, is refused cleanly during a rolling upgrade: sent to sign
// in, the cookie cleared, never a 500.
func TestCookieOfTheBuildBeforeIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := b.client(nil)
	old.cookies[sessionCookie] = b.dash.sign.seal("session", map[string]any{"u": b.alice.ID, "e": time.Now().Add(time.Hour).Unix()})
	if st, loc, _ := old.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("an old cookie: %d %q, want sent to sign in", st, loc)
	}
	if _, ok := old.cookies[sessionCookie]; ok {
		t.Error("the old cookie was not cleared")
	}
}

// TestBrowserWhereSignedIn: in Chromium, Bob signed in on two browsers
// (each its own cookies), the second with his room open, live. The first
// lists both in Settings, names them for what they are, marks itself,
// passes axe-core, and signs the other out with the keyboard alone; the
// other's page says at once that it was signed out.
func TestBrowserWhereSignedIn(t *testing.T) {
	axe := axeSource(t)
	b := setup(t)
	br := newBrowser(t, b)
	_, _, roomID, _, _ := b.askedBeta("Two browsers", 3)
	laptop, phone := br.tab(), br.tab()
	br.signIn(laptop, "bob@example.test")
	br.signIn(phone, "bob@example.test")
	br.do(phone, "open the room", chromedp.Navigate(fmt.Sprintf("%s/rooms/%d", b.base, roomID)), chromedp.WaitVisible(chromedp.CSS(`#room-live`)))
	br.until(phone, "the page listens", `document.documentElement.dataset.live === 'open'`)

	br.do(laptop, "open the settings", chromedp.Navigate(b.base+"/settings"), chromedp.WaitVisible(chromedp.CSS(`[data-sessions]`)))
	if s := br.text(laptop, `[data-sessions] li[aria-current="true"]`); !strings.Contains(s, "Chromium on Linux") || !strings.Contains(s, "this device") {
		t.Errorf("this device, as Settings says it: %q", s)
	}
	br.until(laptop, "both browsers listed", `document.querySelectorAll('[data-sessions] li[data-session]').length === 2`)
	br.audit(laptop, axe, "settings with two sessions")
	names := br.buttonNames(laptop)
	var signOut string
	for _, n := range names {
		if strings.HasPrefix(n, "Sign out: Chromium on Linux, signed in ") {
			signOut = n
		}
	}
	if signOut == "" {
		t.Fatalf("no button names the other session: %q", names)
	}
	br.do(laptop, "sign the other browser out with the keyboard",
		chromedp.Focus(chromedp.CSS(`[data-sessions] li:not([aria-current]) button`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`p.notice[role="status"]`)))
	if s := br.text(laptop, `p.notice[role="status"]`); s != "That device is signed out." {
		t.Errorf("the notice: %q", s)
	}
	br.until(laptop, "one browser left", `document.querySelectorAll('[data-sessions] li[data-session]').length === 1`)
	br.until(phone, "the other page says it was signed out", `document.documentElement.dataset.live === 'gone'`)
	if s := br.text(phone, `[data-live-gone="signed_out"]`); !strings.Contains(s, "you were signed out") {
		t.Errorf("the other page says %q", s)
	}
}

// TestSessionDuringASecretKeyRotation: a dashboard started with a new
// SECRET_KEY and the old one as SECRET_KEY_PREVIOUS keeps the people
// signed in under the old key (their session cookie, signed with the old
// key's session key), and their forms work; a cookie signed with a third
// key is still refused.
func TestSessionDuringASecretKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := bytes.Repeat([]byte{5}, 32), bytes.Repeat([]byte{6}, 32)
	b := setup(t, func(c *Config) { c.SessionKey, c.PreviousSessionKey = newKey, oldKey })
	before := &Dashboard{sign: signer{key: oldKey}} // a process still on the old key
	alice := b.client(nil)
	alice.cookies[sessionCookie] = b.sealedSession(before, b.alice, app.SessionDevice{Browser: "curl"})
	if st, loc, body := alice.get("/settings"); st != http.StatusOK || !strings.Contains(body, "alice@example.test") {
		t.Fatalf("a session cookie of the old key during the rotation: %d %q, want the settings", st, loc)
	}
	if st, loc, _ := alice.post("/settings/language", url.Values{"language": {"de"}}); st != http.StatusSeeOther || strings.HasPrefix(loc, "/login") {
		t.Errorf("a form with the CSRF token given under the rotation: %d %q", st, loc)
	}
	forged := b.client(nil)
	forged.cookies[sessionCookie] = b.sealedSession(&Dashboard{sign: signer{key: bytes.Repeat([]byte{8}, 32)}}, b.alice, app.SessionDevice{Browser: "curl"})
	if st, loc, _ := forged.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("a cookie of a third key: %d %q, want sent to sign in", st, loc)
	}
}
