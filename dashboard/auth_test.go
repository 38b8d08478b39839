package dashboard

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestWelcomeAndSecurityHeaders: signed out, / is the welcome page; every
// page carries the strict CSP and a CSRF cookie that is HttpOnly and
// SameSite; static files are served, unknown ones are not.
func TestWelcomeAndSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	resp, err := http.Get(b.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Sign in") {
		t.Fatalf("welcome: %d %s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Fatalf("CSP: %q", csp)
	}
	var csrf *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == csrfCookie {
			csrf = c
		}
	}
	if csrf == nil || !csrf.HttpOnly || csrf.SameSite != http.SameSiteLaxMode {
		t.Fatalf("csrf cookie: %+v", csrf)
	}
	cl := b.client(nil)
	if st, _, body := cl.get("/static/app.js"); st != 200 || !strings.Contains(body, "EventSource") {
		t.Fatalf("app.js: %d", st)
	}
	if st, _, _ := cl.get("/static/nope.exe"); st != 404 {
		t.Fatalf("unknown static: %d", st)
	}
	if st, loc, _ := cl.get("/settings"); st != http.StatusSeeOther || loc != "/login?next=%2Fsettings" {
		t.Fatalf("settings signed out: %d %q", st, loc)
	}
}

// TestLoginThroughDevIssuer signs in with the authorization code flow
// (PKCE, state, nonce) through the development provider: the first login
// links the user made owner by email, the session works on another
// request, a forged state is refused, and sign-out ends the session.
func TestLoginThroughDevIssuer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	resp, err := browser.Get(b.base + "/login?next=/settings")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "Sign in as alice@example.test") {
		t.Fatalf("provider's login page: %s", page)
	}
	id := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(page))[1]
	resp, err = browser.PostForm(resp.Request.URL.String(), url.Values{"id": {id}, "email": {"alice@example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path != "/settings" || !strings.Contains(string(page), "Alpha Studio") {
		t.Fatalf("after sign-in: %s %s", resp.Request.URL, page)
	}
	u, err := b.accounts.UserByEmail(b.ctx, "alice@example.test")
	if err != nil || u.OIDCIssuer != b.base+"/dev-oidc" || u.ID != b.alice.ID {
		t.Fatalf("linked user: %v %+v", err, u)
	}

	// A callback whose state is not this browser's is refused.
	resp, err = browser.Get(b.base + "/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	forged, err := browser.Get(b.base + "/auth/callback?code=x&state=forged")
	if err != nil {
		t.Fatal(err)
	}
	forged.Body.Close()
	if forged.StatusCode != http.StatusBadRequest {
		t.Fatalf("forged state: %d", forged.StatusCode)
	}
	noCookie, _ := http.Get(b.base + "/auth/callback?code=x&state=y")
	noCookie.Body.Close()
	if noCookie.StatusCode != http.StatusBadRequest {
		t.Fatalf("callback without a login in progress: %d", noCookie.StatusCode)
	}

	// Sign out: the session cookie is gone.
	cl := b.client(&b.alice)
	cl.get("/")
	if st, loc, _ := cl.post("/logout", nil); st != http.StatusSeeOther || loc != "/signed-out" {
		t.Fatalf("logout: %d %q", st, loc)
	}
	if _, ok := cl.cookies[sessionCookie]; ok {
		t.Fatal("the session cookie survived the sign-out")
	}
}

// TestSafeNext: a return path stays on this site, however a browser
// reads it (it drops tabs and newlines, and reads \ as /).
func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		"/settings": "/settings", "/rooms/7?tab=log#x": "/rooms/7?tab=log#x", "/": "/",
		"": "/", "settings": "/", "https://evil.example": "/", "//evil.example": "/", "/\\evil.example": "/",
		"/\t/evil.example/x": "/", "/\n/evil.example": "/", "/\r\n/evil.example": "/", "/\x00/evil.example": "/",
		"/rooms\\..\\x": "/",
	} {
		if got := safeNext(next); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
