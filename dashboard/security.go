package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/csrf"
	"golang.org/x/net/idna"
)

// contentSecurityPolicy allows nothing inline and nothing from elsewhere:
// the embedded script and stylesheet are the only code a page runs.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// headers sets the security headers of every dashboard response. Pages
// are never cached: they hold one person's terms. It also bounds what the
// request waits for the database (pageTimeout).
func (d *Dashboard) headers(c *fiber.Ctx) error {
	d.setHeaders(c)
	ctx, cancel := context.WithTimeout(c.UserContext(), pageTimeout)
	defer cancel()
	c.SetUserContext(ctx)
	return c.Next()
}

// pageTimeout bounds what one request waits for the database; past it the
// page answers 503 with Retry-After (fail), and pgx closes the
// connection. Without it a page whose connection was to a primary that
// hung or vanished without closing it (its machine gone) waited as long as
// the kernel kept the connection, a quarter of an hour or for ever. A page
// takes milliseconds; what reads or changes all of a person's or an
// account's rooms (a download of data, a deletion) has longTimeout.
const pageTimeout = 10 * time.Second

// longTimeout bounds a download of data (an account's export, "Download
// my data") and a deletion (an account, a profile), which go through every
// room of their owner.
const longTimeout = 2 * time.Minute

// longContext is the context such a request works under.
func longContext(c *fiber.Ctx) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(c.UserContext()), longTimeout)
}

// setHeaders sets the security headers of every page (headers).
func (d *Dashboard) setHeaders(c *fiber.Ctx) {
	c.Set("Content-Security-Policy", contentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	// same-origin: links in pages never leak a one-tap or personal token
	// to another site, while the CSRF check still sees our own Referer.
	c.Set("Referrer-Policy", "same-origin")
	c.Set("Cache-Control", "no-store")
	if d.secure {
		c.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

const (
	csrfCookie = "taasky_csrf"
	csrfField  = "_csrf"
	csrfTTL    = 7 * 24 * time.Hour
)

// newCSRF is Fiber's CSRF middleware (double-submit cookie, token in the
// form field _csrf) with tokens that prove themselves: random, stamped with
// their expiry and signed, so that any process accepts them, across
// restarts, with no shared store.
func (d *Dashboard) newCSRF() fiber.Handler {
	check := csrf.New(csrf.Config{
		KeyLookup:      "form:" + csrfField,
		CookieName:     d.cookieName(csrfCookie),
		CookiePath:     "/",
		CookieSecure:   d.secure,
		CookieHTTPOnly: true,
		CookieSameSite: "Lax",
		Expiration:     csrfTTL,
		ContextKey:     "csrf",
		KeyGenerator:   d.newCSRFToken,
		Storage:        csrfTokens{d},
		ErrorHandler: func(c *fiber.Ctx, err error) error {
			return d.showErrorT(c, fiber.StatusForbidden, "error.form_expired")
		},
	})
	return func(c *fiber.Ctx) error {
		switch c.Method() {
		case fiber.MethodGet, fiber.MethodHead, fiber.MethodOptions, fiber.MethodTrace:
			return check(c)
		}
		if d.secure && !d.formFromHere(c) {
			return d.showErrorT(c, fiber.StatusForbidden, "error.form_expired")
		}
		// Fiber's own origin check compares the Referer with the request's
		// Host, X-Forwarded-Host and X-Forwarded-Proto, whoever wrote them:
		// behind a proxy that names the upstream, or drops the port, every
		// form failed, and a client's headers passed any. Ours above
		// decides from BASE_URL; without a scheme header Fiber's is off.
		for _, h := range forwardedScheme {
			c.Request().Header.Del(h)
		}
		return check(c)
	}
}

// forwardedScheme are the headers by which Fiber's c.Protocol() takes a
// request for https.
var forwardedScheme = []string{fiber.HeaderXForwardedProto, fiber.HeaderXForwardedProtocol, fiber.HeaderXForwardedSsl, fiber.HeaderXUrlScheme}

// formFromHere reports whether a form says it was sent from a page of
// BASE_URL's origin: its Origin (every current browser sends one with a
// POST), else its Referer (our pages' Referrer-Policy keeps it for our
// own origin). A request that says neither is refused, as Fiber did.
func (d *Dashboard) formFromHere(c *fiber.Ctx) bool {
	from := c.Get(fiber.HeaderOrigin)
	if from == "" || from == "null" {
		from = c.Get(fiber.HeaderReferer)
	}
	return from != "" && originOf(from) == d.origin
}

// originOf is a URL's scheme and host as browsers write an Origin: lower
// case, a Unicode host in its ASCII form (BASE_URL may be written
// https://bücher.example; browsers say https://xn--bcher-kva.example),
// without the scheme's default port; "" for what is not a URL.
func originOf(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	host := u.Hostname()
	if a, err := idna.Lookup.ToASCII(host); err == nil {
		host = a
	}
	host = strings.ToLower(host)
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && !(u.Scheme == "https" && p == "443") && !(u.Scheme == "http" && p == "80") {
		host += ":" + p
	}
	return strings.ToLower(u.Scheme) + "://" + host
}

func (d *Dashboard) csrfMAC(body string) string {
	m := hmac.New(sha256.New, d.sign.key)
	m.Write([]byte("csrf\x00" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

func (d *Dashboard) newCSRFToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	body := base64.RawURLEncoding.EncodeToString(b) + "." + strconv.FormatInt(d.now().Add(csrfTTL).Unix(), 10)
	return body + "." + d.csrfMAC(body)
}

func (d *Dashboard) validCSRFToken(t string) bool {
	i := strings.LastIndexByte(t, '.')
	if i < 0 {
		return false
	}
	body, mac := t[:i], t[i+1:]
	if !hmac.Equal([]byte(mac), []byte(d.csrfMAC(body))) {
		return false
	}
	_, exp, _ := strings.Cut(body, ".")
	until, err := strconv.ParseInt(exp, 10, 64)
	return err == nil && d.now().Unix() < until
}

// csrfTokens is the CSRF middleware's storage: a token is "stored" when it
// is one of ours and not expired. Nothing is kept.
type csrfTokens struct{ d *Dashboard }

func (s csrfTokens) Get(key string) ([]byte, error) {
	if s.d.validCSRFToken(key) {
		return []byte{1}, nil
	}
	return nil, nil
}
func (csrfTokens) Set(string, []byte, time.Duration) error { return nil }
func (csrfTokens) Delete(string) error                     { return nil }
func (csrfTokens) Reset() error                            { return nil }
func (csrfTokens) Close() error                            { return nil }

// csrfToken is the token to put in the page's forms.
func csrfToken(c *fiber.Ctx) string {
	t, _ := c.Locals("csrf").(string)
	return t
}
