package dashboard

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// oidcSignIn signs email in through the development provider in browser
// (a new one if nil), starting at /login?next=next, typing the address as
// a person would; it returns the browser, the last response's status and
// URL path, and its page.
func oidcSignIn(t *testing.T, b *bundle, browser *http.Client, email, next string) (*http.Client, int, string, string) {
	t.Helper()
	if browser == nil {
		jar, _ := cookiejar.New(nil)
		browser = &http.Client{Jar: jar}
	}
	at, id := oidcStart(t, b, browser, next)
	st, path, page := oidcFinish(t, browser, at, id, email)
	return browser, st, path, page
}

// oidcStart starts a sign-in in browser and returns the provider's login
// page's URL and the sign-in request's id on it.
func oidcStart(t *testing.T, b *bundle, browser *http.Client, next string) (at, id string) {
	t.Helper()
	resp, err := browser.Get(b.base + "/login?next=" + url.QueryEscape(next))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindStringSubmatch(string(page))
	if m == nil {
		t.Fatalf("the provider's login page: %s", page)
	}
	return resp.Request.URL.String(), m[1]
}

// oidcFinish types email on the provider's login page at (oidcStart) and
// returns where the browser ends: status, path and page.
func oidcFinish(t *testing.T, browser *http.Client, at, id, email string) (int, string, string) {
	t.Helper()
	resp, err := browser.PostForm(at, url.Values{"id": {id}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Request.URL.Path, string(page)
}

// TestSignInFollowsTheProvidersAddress: a person whose identity provider
// changed their address (same subject) signs in with the new one: Taasky
// writes to it from then on, not to the old one (which may be someone
// else's by now), and an invitation sent to the new address is theirs to
// accept. When another user of Taasky holds the new address (a person
// added by it who never signed in), the two are not merged: the person
// keeps the address they had and signs in all the same.
func TestSignInFollowsTheProvidersAddress(t *testing.T) {
	t.Parallel()
	b := setup(t)
	smtp := b.inviteMails(t)
	if _, st, path, page := oidcSignIn(t, b, nil, "bob@example.test", "/settings"); st != 200 || path != "/settings" {
		t.Fatalf("bob's first sign-in: %d %s %.300s", st, path, page)
	}
	// Taasky knew Bob by the address his provider gave him before.
	if _, err := b.pool.Exec(b.ctx, `UPDATE users SET email = 'bob-old@example.test' WHERE id = $1`, b.bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", "bob@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	join := firstJoinPath(t, smtp)
	if _, st, path, page := oidcSignIn(t, b, nil, "bob@example.test", join); st != 200 || path != join {
		t.Fatalf("bob signs in from the invitation: %d %s %.300s", st, path, page)
	}
	bob, err := b.accounts.UserByID(b.ctx, b.bob.ID)
	if err != nil || bob.Email != "bob@example.test" || !bob.EmailVerified {
		t.Fatalf("bob after signing in with his new address: %+v %v", bob, err)
	}
	if _, err := b.accounts.UserByEmail(b.ctx, "bob-old@example.test"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("the old address still names a user: %v", err)
	}
	cl := b.client(&bob)
	cl.get(join)
	if st, loc, body := cl.post(join, nil); st != http.StatusSeeOther || loc != "/accounts/alpha/start" {
		t.Fatalf("bob joins by the invitation to his new address: %d %q %.400s", st, loc, body)
	}

	// Carol's new address is a user's already (added by it, never signed
	// in): she keeps hers; that user stays as it was.
	if _, st, _, _ := oidcSignIn(t, b, nil, "carol@example.test", "/"); st != 200 {
		t.Fatalf("carol's first sign-in: %d", st)
	}
	if _, err := b.pool.Exec(b.ctx, `UPDATE users SET email = 'carol-old@example.test' WHERE id = $1`, b.carol.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", "carol@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if _, st, path, page := oidcSignIn(t, b, nil, "carol@example.test", "/settings"); st != 200 || path != "/settings" {
		t.Fatalf("carol signs in while her new address is another user's: %d %s %.300s", st, path, page)
	}
	carol, err := b.accounts.UserByID(b.ctx, b.carol.ID)
	if err != nil || carol.Email != "carol-old@example.test" {
		t.Errorf("carol: %+v %v", carol, err)
	}
	other, err := b.accounts.UserByEmail(b.ctx, "carol@example.test")
	if err != nil || other.ID == carol.ID || other.OIDCSubject != "" {
		t.Errorf("the user added by carol's new address: %+v %v", other, err)
	}
}

// TestSignInsInProgressInOneBrowser: two tabs of one browser sent to sign
// in (a session ended while both were open) each finish their sign-in, in
// either order, each back where it started; a callback used once is not
// used again. Many sign-ins with long return paths keep the login cookie
// small enough for a browser, and the newest one works; a return path
// too long to keep is dropped, not every page refused.
func TestSignInsInProgressInOneBrowser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	jar, _ := cookiejar.New(nil)
	var callbacks []string
	browser := &http.Client{Jar: jar, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if r.URL.Path == "/auth/callback" {
			callbacks = append(callbacks, r.URL.String())
		}
		return nil
	}}
	start := func(next string) (string, string) { return oidcStart(t, b, browser, next) }
	finish := func(at, id, email string) (int, string, string) { return oidcFinish(t, browser, at, id, email) }
	atA, idA := start("/settings")
	atB, idB := start("/")
	if st, path, page := finish(atA, idA, "alice@example.test"); st != 200 || path != "/settings" {
		t.Fatalf("the first tab's sign-in: %d %s %.400s", st, path, page)
	}
	if st, path, page := finish(atB, idB, "alice@example.test"); st != 200 || path != "/" {
		t.Fatalf("the second tab's sign-in: %d %s %.400s", st, path, page)
	}
	resp, err := browser.Get(callbacks[0])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a callback used again: %d", resp.StatusCode)
	}

	long := "/settings?q=" + strings.Repeat("x", 200)
	var at, id string
	for range 6 {
		at, id = start(long)
	}
	base, _ := url.Parse(b.base)
	for _, c := range jar.Cookies(base) {
		if c.Name == loginCookie && len(c.Value) > maxLoginCookie {
			t.Errorf("the login cookie holds %d bytes", len(c.Value))
		}
	}
	if st, path, page := finish(at, id, "alice@example.test"); st != 200 || path != "/settings" {
		t.Fatalf("the newest of many sign-ins: %d %s %.400s", st, path, page)
	}

	// A return path too long for a cookie (a link anyone can make) is
	// forgotten: the pages keep answering, the sign-in ends at home.
	at, id = start("/settings?q=" + strings.Repeat("&", 500))
	for _, c := range jar.Cookies(base) {
		if c.Name == loginCookie && len(c.Value) > maxLoginCookie {
			t.Errorf("the login cookie holds %d bytes", len(c.Value))
		}
	}
	if st, _, _ := b.client(nil).get("/"); st != 200 {
		t.Fatalf("home: %d", st)
	}
	resp, err = browser.Get(b.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("home with a long return path in progress: %d", resp.StatusCode)
	}
	if st, path, page := finish(at, id, "alice@example.test"); st != 200 || path != "/" {
		t.Fatalf("a sign-in with a return path too long: %d %s %.400s", st, path, page)
	}
}

// TestMyDataNamesTheSignIn: "Download my data" holds the identity
// provider's login (issuer and subject) Taasky knows the person by, which
// decides who signs in as them, and the address it last verified.
func TestMyDataNamesTheSignIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, st, _, _ := oidcSignIn(t, b, nil, "alice@example.test", "/settings"); st != 200 {
		t.Fatalf("sign-in: %d", st)
	}
	alice, err := b.accounts.UserByID(b.ctx, b.alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	cl := b.client(&alice)
	cl.get("/settings")
	st, _, body := cl.post("/settings/my-data", nil)
	var md struct {
		Profile map[string]any `json:"profile"`
	}
	if err := json.Unmarshal([]byte(body), &md); st != 200 || err != nil {
		t.Fatalf("download: %d %v %.300s", st, err, body)
	}
	if md.Profile["sign_in_issuer"] != b.base+"/dev-oidc" || md.Profile["sign_in_subject"] != alice.OIDCSubject ||
		md.Profile["email"] != "alice@example.test" || md.Profile["email_verified"] != true {
		t.Errorf("profile: %v (subject %q)", md.Profile, alice.OIDCSubject)
	}
}

// acceptLanguage is a browser's transport that asks for pages in lang.
type acceptLanguage string

func (l acceptLanguage) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Language", string(l))
	return http.DefaultTransport.RoundTrip(r)
}

// TestSignInLinkedElsewhereSaysWhatToDo: a person whose provider account
// was re-created (Taasky knows them by another subject) is refused, in
// their language, with what to do: ask the operator to relink their
// sign-in; once released, the same sign-in is theirs.
func TestSignInLinkedElsewhereSaysWhatToDo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if _, st, _, _ := oidcSignIn(t, b, nil, "bob@example.test", "/settings"); st != 200 {
		t.Fatalf("bob's first sign-in: %d", st)
	}
	if _, err := b.pool.Exec(b.ctx, `UPDATE users SET oidc_subject = 'dev-old-subject' WHERE id = $1`, b.bob.ID); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	german := &http.Client{Jar: jar, Transport: acceptLanguage("de")}
	if _, st, _, page := oidcSignIn(t, b, german, "bob@example.test", "/settings"); st != http.StatusConflict ||
		!strings.Contains(page, "bitten Sie den Betreiber dieses Dienstes, Ihre Anmeldung neu mit Ihrer Adresse zu verknüpfen") {
		t.Fatalf("the re-created login: %d %.3000s", st, page)
	}
	if _, err := b.accounts.ReleaseSignInAsOperator(b.ctx, "bob@example.test"); err != nil {
		t.Fatal(err)
	}
	if _, st, path, page := oidcSignIn(t, b, german, "bob@example.test", "/settings"); st != 200 || path != "/settings" {
		t.Fatalf("the re-created login after relink: %d %s %.300s", st, path, page)
	}
	if bob, err := b.accounts.UserByEmail(b.ctx, "bob@example.test"); err != nil || bob.ID != b.bob.ID || bob.OIDCSubject == "dev-old-subject" {
		t.Errorf("bob after relink: %+v %v", bob, err)
	}
}
