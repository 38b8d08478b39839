package dashboard

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSealedValueKeepsItsPurposeUnderThePreviousKey: during a rotation of
// SECRET_KEY what the previous key sealed still opens, for the purpose it
// was sealed for only; what neither key sealed opens for none.
func TestSealedValueKeepsItsPurposeUnderThePreviousKey(t *testing.T) {
	before, now := signer{key: bytes.Repeat([]byte{1}, 32)}, bytes.Repeat([]byte{2}, 32)
	rotating := signer{key: now, previous: before.key}
	var s session
	if !rotating.open("login", before.seal("login", session{Token: "t", Expires: 9}), &s) || s.Token != "t" {
		t.Fatalf("a login cookie of the previous key is refused during the rotation: %+v", s)
	}
	for _, c := range []struct {
		name   string
		sealed string
	}{
		{"the previous key's login cookie as a session", before.seal("login", session{Token: "t", Expires: 9})},
		{"the new key's login cookie as a session", rotating.seal("login", session{Token: "t", Expires: 9})},
		{"a third key's session", signer{key: bytes.Repeat([]byte{3}, 32)}.seal("session", session{Token: "t", Expires: 9})},
	} {
		if rotating.open("session", c.sealed, &session{}) {
			t.Errorf("%s opens", c.name)
		}
	}
}

// TestFormRefusedWithAForgedOrExpiredToken: a form whose CSRF token (in
// its field and its cookie alike) was not signed by the dashboard is
// refused, and so is one whose token is more than csrfTTL old; neither
// changes anything. The page's own token, in time, passes.
func TestFormRefusedWithAForgedOrExpiredToken(t *testing.T) {
	var skew atomic.Int64
	b := setup(t, func(c *Config) { c.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) } })
	zone := func() string {
		t.Helper()
		u, err := b.accounts.UserByID(b.ctx, b.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.TimeZone
	}
	before := zone()
	cl := b.client(&b.alice)
	cl.get("/settings")
	own := cl.token
	refused := func(name, token string) {
		t.Helper()
		cl.cookies[csrfCookie], cl.token = token, token
		st, _, body := cl.post("/settings/timezone", url.Values{"time_zone": {"Asia/Tokyo"}})
		if st != http.StatusForbidden || !strings.Contains(body, "This form has expired or did not come from this page") {
			t.Errorf("%s: %d\n%s", name, st, body)
		}
		if z := zone(); z != before {
			t.Fatalf("%s changed the time zone to %q", name, z)
		}
	}
	body, _, _ := strings.Cut(own, ".")
	refused("a token of no MAC", body+".x.y")
	i := strings.LastIndexByte(own, '.')
	refused("a token whose MAC is another's", own[:i+1]+strings.Repeat("A", len(own)-i-1))
	skew.Store(int64(csrfTTL + time.Minute))
	refused("the page's token after csrfTTL", own)
	skew.Store(0)
	cl.cookies[csrfCookie], cl.token = own, own
	if st, _, _ := cl.post("/settings/timezone", url.Values{"time_zone": {"Asia/Tokyo"}}); st != http.StatusSeeOther || zone() != "Asia/Tokyo" {
		t.Fatalf("the page's own token: %d, zone %q", st, zone())
	}
}

// recordCookies is a transport that keeps every Set-Cookie it is sent.
type recordCookies struct{ set []string }

func (r *recordCookies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		r.set = append(r.set, resp.Header.Values("Set-Cookie")...)
	}
	return resp, err
}

// TestSignInCookiesAreHttpOnlyAndLax: the login in progress and the
// session a sign-in sets are cookies no script reads and no other site's
// form sends (HttpOnly, SameSite=Lax), for the whole site.
func TestSignInCookiesAreHttpOnlyAndLax(t *testing.T) {
	b := setup(t)
	rec := &recordCookies{}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Transport: rec}
	resp, err := browser.Get(b.base + "/login?next=/settings")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(page))[1]
	resp, err = browser.PostForm(resp.Request.URL.String(), url.Values{"id": {id}, "email": {"alice@example.test"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/settings" {
		t.Fatalf("after sign-in: %s", resp.Request.URL)
	}
	seen := map[string]bool{}
	for _, c := range rec.set {
		name, _, _ := strings.Cut(c, "=")
		if name != sessionCookie && name != loginCookie {
			continue
		}
		seen[name] = true
		if !strings.Contains(c, "; HttpOnly") || !strings.Contains(c, "; SameSite=Lax") || !strings.Contains(c, "; path=/") {
			t.Errorf("%s", c)
		}
	}
	if !seen[sessionCookie] || !seen[loginCookie] {
		t.Fatalf("the cookies set: %q", rec.set)
	}
}

// TestSealedPayloadHasOneSpelling: as its MAC's, a sealed value's payload
// has one spelling; another, differing only in the last character's spare
// bits, is refused.
func TestSealedPayloadHasOneSpelling(t *testing.T) {
	s := signer{key: bytes.Repeat([]byte{7}, 32)}
	for i := range 64 {
		sealed := s.seal("session", session{Token: strconv.Itoa(i)})
		p, sig, _ := strings.Cut(sealed, ".")
		last := strings.IndexByte(b64URL, p[len(p)-1])
		for spare := 1; spare < 4; spare++ {
			other := p[:len(p)-1] + string(b64URL[last^spare]) + "." + sig
			if s.open("session", other, &session{}) {
				t.Fatalf("%q passes for %q", other, sealed)
			}
		}
	}
}
