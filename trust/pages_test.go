package trust

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard"
	"github.com/taasky/taasky/dashboard/devoidc"
	"github.com/taasky/taasky/internal/fiberhttp"
	"github.com/taasky/taasky/oauthserver"
	"github.com/taasky/taasky/receipt"
)

// mountDashboard mounts the humans' pages with the development OIDC issuer
// at /dev-oidc, as taasky dev does; with keys, the rooms' receipts; with
// oauth, the authorization server and the agents connected with it.
func (s *stack) mountDashboard(log *slog.Logger, keys *receipt.Keyring, oauth bool) {
	issuer := s.base + "/dev-oidc"
	h, err := devoidc.New(devoidc.Config{Issuer: issuer,
		Clients: []devoidc.Client{{ID: "dash", Secret: "dash-secret", RedirectURIs: []string{s.base + "/auth/callback"}}},
		Emails:  func(ctx context.Context) ([]string, error) { return s.accounts.OwnerEmails(ctx, 100) }})
	if err != nil {
		s.t.Fatal(err)
	}
	s.app.All("/dev-oidc/*", fiberhttp.Handler(h))
	hub := dashboard.NewHub(s.rooms.RoomSeats, log)
	go app.Listen(s.ctx, s.pool.Config().ConnConfig.Copy(), log, append(hub.Channels(app.RoomChanges), s.accounts.KeyChanges())...)
	cfg := dashboard.Config{BaseURL: s.base, SessionKey: []byte(strings.Repeat("k", 32)),
		Rooms: s.rooms, Accounts: s.accounts, Notifications: s.notes, Webhooks: s.hooks, Hub: hub, Log: log,
		OIDC: dashboard.OIDC{Issuer: issuer, ClientID: "dash", ClientSecret: "dash-secret"}, Receipts: keys}
	if oauth {
		state := app.NewOAuth(s.pool)
		srv, err := oauthserver.New(oauthserver.Config{BaseURL: s.base, Secret: bytes.Repeat([]byte{5}, 32), State: state,
			Accounts: s.accounts, AllowPrivateFetch: true, Log: log})
		if err != nil {
			s.t.Fatal(err)
		}
		srv.Mount(s.app)
		cfg.OAuth = consent{srv, state}
	}
	dash, err := dashboard.New(s.ctx, cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	dash.Mount(s.app)
}

// consent is the dashboard's view of OAuth, as cmd/taasky builds it.
type consent struct {
	*oauthserver.Server
	*app.OAuth
}

// browser is a person's browser without JavaScript: a cookie jar, and the
// CSRF token of the last page it was given.
type browser struct {
	s    *stack
	http *http.Client
	csrf string
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signedOut is a browser nobody signed in with.
func (s *stack) signedOut() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, http: &http.Client{Jar: jar, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// browser signs the tenant's owner in, as a person does.
func (tn *tenant) browser() *browser {
	br := tn.s.signedOut()
	signIn(tn.s.t, br.http.Jar, tn.s.base, tn.email)
	return br
}

// signIn signs email in at base through the OIDC issuer's login page
// (authorization code, PKCE, state, nonce), keeping the session in jar.
func signIn(t testing.TB, jar http.CookieJar, base, email string) {
	t.Helper()
	follow := &http.Client{Jar: jar, Transport: transport}
	resp, err := follow.Get(base + "/login?next=/settings")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the issuer's login page has no id: %s", page)
	}
	resp, err = follow.PostForm(resp.Request.URL.String(), url.Values{"id": {string(m[1])}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/settings" {
		t.Fatalf("%s signing in ended at %s (%d)", email, resp.Request.URL, resp.StatusCode)
	}
}

// do sends a request (a form when form is not nil, with the CSRF token the
// browser holds unless form has one) and returns the status, the Location
// and the body. Redirects are not followed.
func (br *browser) do(method, path string, form url.Values) (int, string, string) {
	br.s.t.Helper()
	var body io.Reader
	if form != nil {
		if _, ok := form["_csrf"]; !ok && br.csrf != "" {
			form = cloneForm(form)
			form.Set("_csrf", br.csrf)
		}
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(br.s.ctx, method, br.s.base+path, body)
	if err != nil {
		return 0, "", err.Error() // a path no browser could send
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := br.http.Do(req)
	if err != nil {
		br.s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if m := csrfInput.FindSubmatch(out); m != nil {
		br.csrf = string(m[1])
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(out)
}

func cloneForm(f url.Values) url.Values {
	out := url.Values{}
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}
