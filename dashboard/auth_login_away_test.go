package dashboard

import (
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/locale"
)

// TestLoginAsksAProviderNotHeardFromLately: /login sends no one on to an
// identity provider that does not answer. Before, once the provider was
// discovered, /login sent every browser on to it, whose absence the
// browser showed in words of its own, and from where the person never
// came back: only a sign-in already at the provider when it went away
// (its callback) was told that sign-in is unavailable. Now a provider
// that answered within the minute, and has not failed since, gets the
// browser at no cost (no request of Taasky's per sign-in); otherwise
// /login asks for its discovery document first (at most every 5 s), and
// answers 503 with Retry-After and the page the callback shows when it
// does not answer, also right after a callback found it away.
func TestLoginAsksAProviderNotHeardFromLately(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	var op *provider
	b := setup(t, func(c *Config) {
		op = newProvider(t, c.BaseURL+"/auth/callback")
		c.OIDC.Issuer = op.issuer
		c.Now = clk.now
	})
	away := locale.NewPrinter("de").T("error.sign_in_unavailable")
	browser := stoppedAtCallback
	get := func(cl *http.Client, u string) (*http.Response, string) { t.Helper(); return getInGerman(t, cl, u) }
	// login is /login, its redirect not followed: where it sends the
	// browser, or the page it answers.
	login := func(what string, wantAway bool) {
		t.Helper()
		cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, page := get(cl, b.base+"/login")
		sentOn := resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(resp.Header.Get("Location"), op.issuer)
		told := resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == providerRetryAfter &&
			strings.Contains(page, template.HTMLEscapeString(away))
		if wantAway && !told || !wantAway && !sentOn {
			t.Fatalf("/login %s: %d, Location %q, Retry-After %q; want %s", what, resp.StatusCode, resp.Header.Get("Location"),
				resp.Header.Get("Retry-After"), map[bool]string{true: "503, Retry-After 60 and the page saying sign-in is unavailable", false: "303 to the provider"}[wantAway])
		}
	}
	toCallback := func(cl *http.Client) string {
		t.Helper()
		resp, page := get(cl, b.base+"/login")
		m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("provider's login page: %d %s", resp.StatusCode, page)
		}
		resp, err := cl.PostForm(resp.Request.URL.String(), url.Values{"id": {m[1]}, "email": {"alice@example.test"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("Location")
	}

	// A sign-in: the provider is discovered, and answered.
	cl := browser()
	if resp, _ := get(cl, toCallback(cl)); resp.StatusCode != http.StatusOK {
		t.Fatalf("a sign-in with the provider up: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	asked := op.discoveries.Load()
	// Within the minute, sign-ins cost Taasky no request to the provider.
	for range 3 {
		login("with the provider heard from lately", false)
	}
	if n := op.discoveries.Load() - asked; n != 0 {
		t.Errorf("/login asked the provider %d times within a minute of its answer", n)
	}

	// Not heard from for a minute, and away: /login asks, and says so.
	clk.add(61 * time.Second)
	op.stop()
	login("with the provider away", true)
	// Back: within 5 s of the last probe its answer holds; then asked again.
	op.start()
	login("within 5 s of a probe that found the provider away", true)
	clk.add(5 * time.Second)
	login("once the provider is back", false)

	// A callback finds it away while it answered within the minute: the
	// next /login asks it first.
	late := browser()
	callback := toCallback(late)
	op.stop()
	if resp, _ := get(late, callback); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the callback with the provider away: %d", resp.StatusCode)
	}
	clk.add(5 * time.Second)
	login("after a callback found the provider away", true)
	op.start()
	clk.add(5 * time.Second)
	login("once the provider is back again", false)
}
