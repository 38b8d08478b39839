package bench

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/taasky/taasky/dashboard/devoidc"
)

// Issuer is the OpenID Connect provider the live bench's people sign in
// with: the development provider (package devoidc), a real one whose login
// page signs in any address, served by the bench on its own port. The
// server under test is pointed at it (OIDC_ISSUER), so each person signs in
// to the dashboard exactly as through any provider: authorization code,
// PKCE, state, nonce, the session cookie set by /auth/callback.
type Issuer struct {
	URL          string // the issuer (OIDC_ISSUER)
	ClientID     string
	ClientSecret string
	srv          *http.Server
}

// issuerPath is where the provider is served on its listener.
const issuerPath = "/dev-oidc"

// StartIssuer serves the provider on addr ("": a free port on 127.0.0.1)
// for a dashboard at base (its /auth/callback is the one redirect allowed).
func StartIssuer(addr, base string) (*Issuer, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("issuer: %w", err)
	}
	is := &Issuer{URL: "http://" + ln.Addr().String() + issuerPath, ClientID: "taasky-bench", ClientSecret: rand.Text()}
	var key [32]byte
	_, _ = rand.Read(key[:])
	h, err := devoidc.New(devoidc.Config{Issuer: is.URL, CryptoKey: key,
		Clients: []devoidc.Client{{ID: is.ClientID, Secret: is.ClientSecret, RedirectURIs: []string{base + "/auth/callback"}}}})
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(issuerPath+"/", h)
	is.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = is.srv.Serve(ln) }()
	return is, nil
}

// Close stops serving.
func (is *Issuer) Close() { _ = is.srv.Close() }

var authRequestID = regexp.MustCompile(`name="id" value="([^"]+)"`)

// SignIn signs email in to the dashboard at base through the issuer's
// login page, as a person's browser does, and returns the session cookie
// the dashboard set ("name=value", for a Cookie header).
func SignIn(ctx context.Context, tr http.RoundTripper, base, email string) (string, error) {
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: tr, Jar: jar, Timeout: 60 * time.Second}
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/login?next=/", nil)
	resp, err := browser.Do(req)
	if err != nil {
		return "", fmt.Errorf("sign in %s: %w", email, err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := authRequestID.FindSubmatch(page)
	if m == nil {
		return "", fmt.Errorf("sign in %s: /login did not lead to the issuer's login page (%d at %s)", email, resp.StatusCode, resp.Request.URL)
	}
	form := url.Values{"id": {string(m[1])}, "email": {email}}
	req, _ = http.NewRequestWithContext(ctx, "POST", resp.Request.URL.String(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = browser.Do(req)
	if err != nil {
		return "", fmt.Errorf("sign in %s: %w", email, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/" {
		return "", fmt.Errorf("sign in %s: ended at %s (%d)", email, resp.Request.URL, resp.StatusCode)
	}
	u, _ := url.Parse(base)
	for _, c := range jar.Cookies(u) {
		if c.Name == "taasky_session" || c.Name == "__Host-taasky_session" { // __Host- under https
			return c.Name + "=" + c.Value, nil
		}
	}
	return "", fmt.Errorf("sign in %s: the dashboard set no session cookie", email)
}
