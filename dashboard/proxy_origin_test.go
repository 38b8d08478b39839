package dashboard

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
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
