package dashboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// Signed cookies carry state no server keeps: the login session, a login
// in progress, the CSRF token's proof. Each is JSON signed with HMAC-SHA256
// under the session key and a purpose, so any process with the same
// SECRET_KEY reads them, across restarts, and one kind cannot pass for
// another.

const (
	sessionCookie = "taasky_session"
	loginCookie   = "taasky_login"
	zoneCookie    = "taasky_tz"    // the browser's time zone, as its script told it (POST /zone)
	seatsCookie   = "taasky_seats" // the seats this browser answered from (rememberSeat)
	sessionTTL    = 14 * 24 * time.Hour
	loginTTL      = 10 * time.Minute
	seatTTL       = 120 * 24 * time.Hour
)

type signer struct{ key []byte }

func (s signer) mac(purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

// seal signs v for purpose.
func (s signer) seal(purpose string, v any) string {
	payload, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(s.mac(purpose, payload))
}

var strictB64 = base64.RawURLEncoding.Strict()

// open checks a sealed value for purpose and reads it into v.
func (s signer) open(purpose, sealed string, v any) bool {
	p, sig, ok := strings.Cut(sealed, ".")
	if !ok {
		return false
	}
	// Strict: a value is sealed one way only (no spare bits set), so no
	// other spelling of a cookie passes for it.
	payload, err1 := strictB64.DecodeString(p)
	mac, err2 := strictB64.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(purpose, payload)) {
		return false
	}
	return json.Unmarshal(payload, v) == nil
}

// session is a logged-in user, until Expires (unix seconds), while the
// user's session epoch is still Epoch (app.User.SessionEpoch: raised when
// they are removed from an account or leave one, to end every session).
type session struct {
	UserID  int64 `json:"u"`
	Expires int64 `json:"e"`
	Epoch   int   `json:"p,omitempty"`
}

// loginState is an OIDC login in progress: what the callback checks. The
// cookie holds the newest, and in Older the others this browser started
// and has not finished (two tabs sent to sign in, say; loginsOf).
type loginState struct {
	State    string       `json:"s"`
	Nonce    string       `json:"n"`
	Verifier string       `json:"v"`
	Next     string       `json:"r"`
	Expires  int64        `json:"e"`
	Older    []loginState `json:"o,omitempty"`
}

// hostOnly is the prefix of every cookie's name under https: a cookie
// named __Host-… is taken by a browser only from this host, over https,
// for Path=/, without a Domain, so a site on a sibling subdomain cannot
// set one for this host (cookie tossing): not a session of its choosing
// (the person then acts in the attacker's account), not a CSRF cookie
// whose token it knows (its forms would pass the check).
const hostOnly = "__Host-"

// cookieName is the name a cookie of ours has on the wire: its name,
// prefixed with __Host- under https.
func (d *Dashboard) cookieName(name string) string {
	if d.secure {
		return hostOnly + name
	}
	return name
}

// cookie reads one of our cookies.
func (d *Dashboard) cookie(c *fiber.Ctx, name string) string { return c.Cookies(d.cookieName(name)) }

func (d *Dashboard) setCookie(c *fiber.Ctx, name, value string, ttl time.Duration) {
	ck := &fiber.Cookie{Name: d.cookieName(name), Value: value, Path: "/", HTTPOnly: true, Secure: d.secure, SameSite: fiber.CookieSameSiteLaxMode}
	if ttl > 0 {
		ck.Expires = d.now().Add(ttl)
		ck.MaxAge = int(ttl.Seconds())
	} else {
		ck.Expires = time.Unix(1, 0)
		ck.MaxAge = -1
	}
	c.Cookie(ck)
}

func (d *Dashboard) clearCookie(c *fiber.Ctx, name string) { d.setCookie(c, name, "", 0) }

// sessionOf reads the session cookie; false if there is none, or it is
// forged or expired. The epoch is not checked here.
func (d *Dashboard) sessionOf(c *fiber.Ctx) (session, bool) {
	var s session
	if !d.sign.open("session", d.cookie(c, sessionCookie), &s) || s.UserID <= 0 || d.now().Unix() >= s.Expires {
		return session{}, false
	}
	return s, true
}

// sessionUser returns the signed-in user; ok is false if nobody is, or
// their session names a user that no longer exists, or their sessions were
// ended since this one began (the cookie is then cleared), or the user
// could not be read (err: the database did not answer, say; not "signed
// out").
func (d *Dashboard) sessionUser(c *fiber.Ctx) (u app.User, ok bool, err error) {
	if u := d.signedIn(c); u != nil {
		return *u, true, nil // read already (signedInReader)
	}
	s, ok := d.sessionOf(c)
	if !ok {
		return app.User{}, false, nil
	}
	u, err = d.accounts.UserByID(c.UserContext(), s.UserID)
	if app.ErrorCodeOf(err) == app.ErrNotFound || (err == nil && u.SessionEpoch != s.Epoch) {
		d.clearCookie(c, sessionCookie)
		return app.User{}, false, nil
	}
	return u, err == nil, err
}

// streamSession is sessionUser for a live stream, with the session (its
// end); u.ID is 0 when nobody is signed in.
func (d *Dashboard) streamSession(c *fiber.Ctx) (u app.User, s session, err error) {
	u, ok, err := d.sessionUser(c)
	if !ok {
		return app.User{}, session{}, err
	}
	s, _ = d.sessionOf(c)
	return u, s, nil
}

// expires is when the session ends.
func (s session) expires() time.Time { return time.Unix(s.Expires, 0) }

// startSession signs user in on this browser.
func (d *Dashboard) startSession(c *fiber.Ctx, user app.User) {
	d.setCookie(c, sessionCookie, d.sign.seal("session", session{UserID: user.ID, Expires: d.now().Add(sessionTTL).Unix(),
		Epoch: user.SessionEpoch}), sessionTTL)
}
