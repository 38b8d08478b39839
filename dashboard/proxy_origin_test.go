package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/notify"
)

// TestFormsBehindAProxyCheckTheOriginAgainstBaseURL: behind a
// TLS-terminating proxy, whether a form comes from one of Taasky's pages
// is decided from BASE_URL, never from the Host, X-Forwarded-Host or
// X-Forwarded-Proto the proxy (or a client) sent. Fiber's check compared
// the Referer with those: nginx's `proxy_set_header Host $host` on a port
// other than 443, or no Host line at all (nginx then sends the upstream's
// name), made every form of the dashboard "expired" (403), while headers a
// client wrote let a form from another site through it.
func TestFormsBehindAProxyCheckTheOriginAgainstBaseURL(t *testing.T) {
	t.Parallel()
	const site = "https://taasky.example:8443"
	b := setup(t, func(c *Config) { c.BaseURL = site })
	session := b.sessionOf(b.alice)
	jar := map[string]string{"__Host-taasky_session": session}
	send := func(method, path string, form url.Values, h map[string]string) (int, string) {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequest(method, b.base+path, body)
		if err != nil {
			t.Fatal(err)
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for k, v := range jar {
			req.AddCookie(&http.Cookie{Name: k, Value: v})
		}
		for k, v := range h {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		for _, c := range resp.Cookies() {
			jar[c.Name] = c.Value
		}
		return resp.StatusCode, string(out)
	}
	token := func() string {
		t.Helper()
		st, body := send(http.MethodGet, "/settings", nil, nil)
		m := csrfInput.FindStringSubmatch(body)
		if st != http.StatusOK || m == nil {
			t.Fatalf("settings: %d, no CSRF token", st)
		}
		return m[1]
	}
	zone := func() string {
		t.Helper()
		u, err := b.accounts.UserByID(b.ctx, b.alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		return u.TimeZone
	}

	// What a browser sends from the settings page, through proxies as
	// operators write them.
	for i, proxied := range []map[string]string{
		{"Host": "taasky.example", "X-Forwarded-Proto": "https"},          // nginx: Host $host (no port)
		{"X-Forwarded-Proto": "https"},                                    // nginx without a Host line: the upstream's address
		{"Host": "taasky.example:8443", "X-Forwarded-Proto": "https"},     // Host $http_host
		{"Host": "taasky.example:8443", "X-Forwarded-Host": "web-1:8080"}, // a load balancer naming its backend
	} {
		want := []string{"Europe/Paris", "Asia/Tokyo", "America/New_York", "Europe/Berlin"}[i]
		h := map[string]string{"Origin": site, "Referer": site + "/settings"}
		for k, v := range proxied {
			h[k] = v
		}
		if st, body := send(http.MethodPost, "/settings/timezone", url.Values{csrfField: {token()}, "time_zone": {want}}, h); st != http.StatusSeeOther {
			t.Errorf("a form from %s/settings through %v: %d, want 303\n%.300s", site, proxied, st, body)
		} else if got := zone(); got != want {
			t.Errorf("through %v: the time zone is %q, want %q", proxied, got, want)
		}
	}

	// A form from another site is refused, whatever the request's
	// headers say about the host and the scheme.
	before := zone()
	for _, h := range []map[string]string{
		{"Origin": "https://evil.example", "Referer": "https://evil.example/x", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"},
		{"Origin": "https://evil.example", "Referer": "https://evil.example/x"}, // no X-Forwarded-Proto: Fiber checked nothing
		{"Referer": "https://evil.example/x", "Host": "evil.example"},
		{"Origin": "http://taasky.example:8443", "Referer": "http://taasky.example:8443/settings"}, // not https
		{}, // says nothing of where it comes from
	} {
		if st, _ := send(http.MethodPost, "/settings/timezone", url.Values{csrfField: {token()}, "time_zone": {"Pacific/Auckland"}}, h); st != http.StatusForbidden {
			t.Errorf("a form with %v: %d, want 403", h, st)
		}
		if got := zone(); got != before {
			t.Fatalf("a form with %v changed the time zone to %q", h, got)
		}
	}
	// A browser that sends no Referer (a setting) still names the origin.
	if st, _ := send(http.MethodPost, "/settings/timezone", url.Values{csrfField: {token()}, "time_zone": {"Asia/Tokyo"}}, map[string]string{"Origin": site}); st != http.StatusSeeOther {
		t.Errorf("a form with Origin %s and no Referer: %d, want 303", site, st)
	}
}

// TestJoinButtonAtAnHTTPSBaseURL: the invitation's Join button works
// where BASE_URL is https, where a form's origin is checked. The join
// page said Referrer-Policy: no-referrer, under which a browser's form
// says Origin "null" and no Referer (Chromium does): every Join was
// refused 403 "form expired".
func TestJoinButtonAtAnHTTPSBaseURL(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.BaseURL = "https://taasky.example" })
	smtp := b.inviteMails(t)
	erin, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: "https://idp.example", Subject: "erin",
		Email: "erin@example.test", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", erin.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && len(smtp.Mails()) < 1; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if len(smtp.Mails()) != 1 {
		t.Fatalf("%d mails", len(smtp.Mails()))
	}
	p, err := notify.Parse(smtp.Mails()[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	path := regexp.MustCompile(`/join/tj_[A-Za-z0-9_-]{43}`).FindString(p.Text)
	erinc := b.client(nil)
	erinc.cookies[b.dash.cookieName(sessionCookie)] = b.sessionOf(erin)
	if st, _, body := erinc.get(path); st != http.StatusOK || !strings.Contains(body, `action="`+path+`"`) {
		t.Fatalf("the join page: %d %s", st, body[strings.Index(body, "<main"):])
	}
	if st, loc, body := erinc.post(path, nil); st != http.StatusSeeOther || loc != "/accounts/alpha/start" {
		t.Errorf("Join pressed in a browser: %d %q %.300s", st, loc, body)
	}
}

// TestFormsAtAnInternationalizedBaseURL: BASE_URL may name its host in
// Unicode (https://bücher.example), but a browser's Origin and Referer
// name it in its ASCII form (https://xn--bcher-kva.example): compared as
// written, every form was refused 403 "form expired".
func TestFormsAtAnInternationalizedBaseURL(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.BaseURL = "https://bücher.example" })
	cl := b.client(nil)
	cl.cookies[b.dash.cookieName(sessionCookie)] = b.sessionOf(b.alice)
	if st, _, _ := cl.get("/settings"); st != http.StatusOK || cl.token == "" {
		t.Fatalf("settings: %d", st)
	}
	form := url.Values{csrfField: {cl.token}, "time_zone": {"Asia/Tokyo"}}
	req := httptest.NewRequest(http.MethodPost, "/settings/timezone", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://xn--bcher-kva.example") // as Chromium writes it
	req.Header.Set("Referer", "https://xn--bcher-kva.example/settings")
	for k, v := range cl.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := b.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a form from https://xn--bcher-kva.example/settings: %d, want 303", resp.StatusCode)
	}
	// Another site's ASCII name is still another site.
	req = httptest.NewRequest(http.MethodPost, "/settings/timezone", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://xn--bcher-kva.example.evil")
	for k, v := range cl.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	if resp, err = b.app.Test(req, -1); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a form from another site: %d, want 403", resp.StatusCode)
	}
}

// TestOriginOf: origins as browsers write them.
func TestOriginOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://Taasky.Example:443/x": "https://taasky.example",
		"http://[::1]:8080/settings":   "http://[::1]:8080",
		"https://[::1]:443":            "https://[::1]",
		"https://bücher.example/x":     "https://xn--bcher-kva.example",
		"HTTPS://BÜCHER.example:8443":  "https://xn--bcher-kva.example:8443",
		"null":                         "",
	} {
		if got := originOf(in); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
}
