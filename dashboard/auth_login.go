package dashboard

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"unicode"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gofiber/fiber/v2"
	"golang.org/x/oauth2"
)

// authLogin starts an OpenID Connect sign-in: authorization code with PKCE
// (S256), a state and a nonce, all kept in a short-lived signed cookie that
// the callback checks. With the provider away (not discovered, or not
// answering: oidcClient.away) it says that sign-in is unavailable, 503
// with Retry-After, as the callback does, rather than send the browser on
// to it.
func (d *Dashboard) authLogin(c *fiber.Ctx) error {
	_, oauth, _, err := d.oidc.get()
	if err != nil {
		d.log.ErrorContext(c.UserContext(), "sign-in", "err", err)
		c.Set(fiber.HeaderRetryAfter, providerRetryAfter)
		return d.showErrorT(c, fiber.StatusServiceUnavailable, "error.sign_in_unavailable")
	}
	if d.oidc.away(c.UserContext()) {
		d.log.WarnContext(c.UserContext(), "sign-in: the identity provider did not answer", "issuer", d.oidc.cfg.Issuer)
		c.Set(fiber.HeaderRetryAfter, providerRetryAfter)
		return d.showErrorT(c, fiber.StatusServiceUnavailable, "error.sign_in_unavailable")
	}
	ls := loginState{State: randomString(), Nonce: randomString(), Verifier: oauth2.GenerateVerifier(),
		Next: safeNext(c.Query("next")), Expires: d.now().Add(loginTTL).Unix()}
	logins := []loginState{ls}
	for _, l := range d.loginsOf(c) {
		if d.now().Unix() < l.Expires && len(logins) < maxLogins {
			logins = append(logins, l)
		}
	}
	d.keepLogins(c, logins)
	return c.Redirect(oauth.AuthCodeURL(ls.State, oidc.Nonce(ls.Nonce), oauth2.S256ChallengeOption(ls.Verifier)), fiber.StatusSeeOther)
}

// maxLogins is how many sign-ins one browser may have in progress at
// once: a person with two tabs sent to sign in (their session ended while
// both were open) finishes either, then the other, where one cookie of a
// single sign-in made the first one finished fail ("not for the sign-in
// this browser started") when it was not the last one started.
const maxLogins = 4

// maxLoginCookie bounds the login cookie's value: a request's headers,
// every cookie included, must fit in the server's 4 kB read buffer, or
// every page of Taasky answers 431 for as long as the cookie lives (and
// anyone can link a person to /login?next= a long path). The oldest
// sign-ins in progress go first; a newest one still too long forgets its
// return path (the consent screen's, with its query, takes about 900).
const maxLoginCookie = 1400

// loginsOf are the sign-ins in progress in this browser, newest first,
// expired ones included; none if the cookie is missing or forged.
func (d *Dashboard) loginsOf(c *fiber.Ctx) []loginState {
	var ls loginState
	if !d.sign.open("login", d.cookie(c, loginCookie), &ls) {
		return nil
	}
	logins := append([]loginState{ls}, ls.Older...)
	for i := range logins {
		logins[i].Older = nil
	}
	return logins
}

// keepLogins writes the sign-ins in progress (newest first) into the
// login cookie, as many of the newest as fit in maxLoginCookie; none
// clears it.
func (d *Dashboard) keepLogins(c *fiber.Ctx, logins []loginState) {
	if len(logins) == 0 {
		d.clearCookie(c, loginCookie)
		return
	}
	head := logins[0]
	head.Older = logins[1:]
	sealed := d.sign.seal("login", head)
	for len(sealed) > maxLoginCookie && len(head.Older) > 0 {
		head.Older = head.Older[:len(head.Older)-1]
		sealed = d.sign.seal("login", head)
	}
	if len(sealed) > maxLoginCookie {
		head.Next = "/"
		sealed = d.sign.seal("login", head)
	}
	d.setCookie(c, loginCookie, sealed, loginTTL)
}

// safeNext keeps a return path on this site: a path, never //host or a
// URL. Browsers read a backslash as a slash and drop tabs and newlines
// before resolving a URL ("/\t/evil.example" is "//evil.example"), so a
// path with a backslash or any control character goes home instead.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsFunc(next, func(r rune) bool {
		return r == '\\' || unicode.IsControl(r)
	}) {
		return "/"
	}
	return next
}

func randomString() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
