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
// the callback checks.
func (d *Dashboard) authLogin(c *fiber.Ctx) error {
	_, oauth, _, err := d.oidc.get()
	if err != nil {
		d.log.Error("sign-in", "err", err)
		return d.showErrorT(c, fiber.StatusServiceUnavailable, "error.sign_in_unavailable")
	}
	ls := loginState{State: randomString(), Nonce: randomString(), Verifier: oauth2.GenerateVerifier(),
		Next: safeNext(c.Query("next")), Expires: d.now().Add(loginTTL).Unix()}
	d.setCookie(c, loginCookie, d.sign.seal("login", ls), loginTTL)
	return c.Redirect(oauth.AuthCodeURL(ls.State, oidc.Nonce(ls.Nonce), oauth2.S256ChallengeOption(ls.Verifier)), fiber.StatusSeeOther)
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
