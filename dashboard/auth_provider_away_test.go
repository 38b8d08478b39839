package dashboard

import (
	"html/template"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/dashboard/devoidc"
	"github.com/taasky/taasky/internal/locale"
)

// provider is an OpenID Connect provider of its own, on an address the
// test stops and starts again: the identity provider going away.
type provider struct {
	t      *testing.T
	addr   string
	issuer string
	h      http.Handler
	srv    *http.Server
	// discoveries counts the requests for its discovery document.
	discoveries atomic.Int64
}

func newProvider(t *testing.T, redirect string) *provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{t: t, addr: ln.Addr().String()}
	p.issuer = "http://" + p.addr + "/op"
	if p.h, err = devoidc.New(devoidc.Config{Issuer: p.issuer,
		Clients: []devoidc.Client{{ID: "dash", Secret: "dash-secret", RedirectURIs: []string{redirect}}}}); err != nil {
		t.Fatal(err)
	}
	p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

func (p *provider) serve(ln net.Listener) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration") {
			p.discoveries.Add(1)
		}
		p.h.ServeHTTP(w, r)
	})
	p.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
}

// stop closes the listener and every connection: nothing answers there.
func (p *provider) stop() {
	if p.srv != nil {
		_ = p.srv.Close()
		p.srv = nil
	}
}

// start serves again on the same address (the port may linger a moment).
func (p *provider) start() {
	p.t.Helper()
	var ln net.Listener
	var err error
	for range 100 {
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// TestSignInWhileTheProviderIsAway: with the identity provider away, a
// person signing in is told so on one page in their language (503, with
// Retry-After), whether the provider was away from the start or went away
// between its login page and the callback (the code's exchange), never
// "could not be verified"; a person already signed in keeps working, a
// one-tap link opens without signing in, and sign-in works again once the
// provider is back, without a restart.
func TestSignInWhileTheProviderIsAway(t *testing.T) {
	t.Parallel()
	var op *provider
	b := setup(t, func(c *Config) {
		op = newProvider(t, c.BaseURL+"/auth/callback")
		c.OIDC.Issuer = op.issuer
	})
	away := locale.NewPrinter("de").T("error.sign_in_unavailable")
	sayAway := func(what string, resp *http.Response, page string) {
		t.Helper()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(page, template.HTMLEscapeString(away)) {
			t.Fatalf("%s with the provider away: %d, Retry-After %q:\n%s", what, resp.StatusCode, resp.Header.Get("Retry-After"), page)
		}
	}
	// browser signs in as alice up to the provider's redirect to the
	// callback, which it returns unfollowed.
	browser := stoppedAtCallback
	get := func(cl *http.Client, u string) (*http.Response, string) { t.Helper(); return getInGerman(t, cl, u) }
	toCallback := func(cl *http.Client) string {
		t.Helper()
		resp, page := get(cl, b.base+"/login?next=/settings")
		m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("provider's login page: %d %s", resp.StatusCode, page)
		}
		resp, err := cl.PostForm(resp.Request.URL.String(), url.Values{"id": {m[1]}, "email": {"alice@example.test"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("provider's answer to the login: %d", resp.StatusCode)
		}
		return resp.Header.Get("Location")
	}

	// Away from the start: nothing discovered yet.
	op.stop()
	fresh := browser()
	resp, page := get(fresh, b.base+"/login")
	sayAway("/login", resp, page)

	// Back: sign-in works, without a restart.
	op.start()
	signedIn := browser()
	if resp, _ = get(signedIn, toCallback(signedIn)); resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/settings" {
		t.Fatalf("callback with the provider up: %d at %s", resp.StatusCode, resp.Request.URL)
	}

	// Away between the provider's login page and the callback.
	late := browser()
	callback := toCallback(late)
	op.stop()
	resp, page = get(late, callback)
	sayAway("the callback", resp, page)

	// Meanwhile: a session goes on, a one-tap link opens.
	if resp, page = get(signedIn, b.base+"/settings"); resp.StatusCode != http.StatusOK || !strings.Contains(page, "Alpha Studio") {
		t.Fatalf("settings of a signed-in person with the provider away: %d", resp.StatusCode)
	}
	_, _, _, _, token := b.askedBeta("While the provider is away", 10)
	if resp, _ = get(browser(), b.base+"/c/"+token); resp.StatusCode != http.StatusOK {
		t.Fatalf("one-tap link with the provider away: %d", resp.StatusCode)
	}

	// Back again: the same browser signs in from the start.
	op.start()
	if resp, _ = get(late, toCallback(late)); resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/settings" {
		t.Fatalf("callback once the provider is back: %d at %s", resp.StatusCode, resp.Request.URL)
	}
}

// stoppedAtCallback is a browser with its own cookies that does not
// follow the provider's redirect to the callback.
func stoppedAtCallback() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == "/auth/callback" {
			return http.ErrUseLastResponse
		}
		return nil
	}}
}

// getInGerman GETs u with cl, asking for German pages: the answer and its
// body.
func getInGerman(t *testing.T, cl *http.Client, u string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Accept-Language", "de")
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(page)
}
