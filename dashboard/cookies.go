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
	zoneCookie    = "taasky_tz"        // the browser's time zone, as its script told it (POST /zone)
	seatsCookie   = "taasky_seats"     // the seats this browser answered from (rememberSeat)
	sessionTTL    = app.SessionMaxLife // the cookie's; its row ends it sooner (app.SessionIdle)
	loginTTL      = 10 * time.Minute
	seatTTL       = 120 * 24 * time.Hour
)

// signer signs with key; during a rotation of SECRET_KEY, what previous
// (SECRET_KEY_PREVIOUS's key, nil: none) signed still opens.
type signer struct{ key, previous []byte }

func (s signer) mac(purpose string, payload []byte) []byte { return macUnder(s.key, purpose, payload) }

func macUnder(key []byte, purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
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
	if err1 != nil || err2 != nil {
		return false
	}
	if !hmac.Equal(mac, s.mac(purpose, payload)) && (s.previous == nil || !hmac.Equal(mac, macUnder(s.previous, purpose, payload))) {
		return false
	}
	return json.Unmarshal(payload, v) == nil
}

// session is a signed-in browser: the token of its session
// (app.StartSession), whose row says whose it is and whether it is still
// live, and the latest it may last (app.SessionMaxLife after the
// sign-in; the row ends it sooner when it is not used or is ended). A
// cookie of the builds before sessions had rows ({"u": user, "e": end},
// no token) opens with no token, and is refused: sign in again.
type session struct {
	Token   string `json:"t"`
	Expires int64  `json:"e"`
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
// forged, expired or of a build before sessions had rows. Whether its
// session is still live is not checked here.
func (d *Dashboard) sessionOf(c *fiber.Ctx) (session, bool) {
	var s session
	if !d.sign.open("session", d.cookie(c, sessionCookie), &s) || s.Token == "" || d.now().Unix() >= s.Expires {
		return session{}, false
	}
	return s, true
}

// sessionUser returns the signed-in user; ok is false if nobody is, or
// their session ended, expired or names a user that no longer exists (the
// cookie is then cleared), or the user could not be read (err: the
// database did not answer, say; not "signed out"). It is the request's one
// statement for it (app.Accounts.SessionUser, which also renews the
// session now and then); the session is kept for thisSession.
func (d *Dashboard) sessionUser(c *fiber.Ctx) (u app.User, ok bool, err error) {
	if u := d.signedIn(c); u != nil {
		return *u, true, nil // read already (signedInReader)
	}
	if in, ok := c.Locals(sessionKey{}).(*liveSession); ok {
		return in.User, true, nil
	}
	s, ok := d.sessionOf(c)
	if !ok {
		if d.cookie(c, sessionCookie) != "" {
			d.clearCookie(c, sessionCookie)
		}
		return app.User{}, false, nil
	}
	in, err := d.accounts.SessionUser(c.UserContext(), s.Token)
	if app.ErrorCodeOf(err) == app.ErrNotFound {
		d.clearCookie(c, sessionCookie)
		return app.User{}, false, nil
	}
	if err != nil {
		return app.User{}, false, err
	}
	c.Locals(sessionKey{}, &liveSession{SignedIn: in, token: s.Token, readAt: time.Now()})
	return in.User, true, nil
}

// liveSession is the signed-in person of a request with their session and
// its token.
type liveSession struct {
	app.SignedIn
	token  string
	readAt time.Time // this process's moment of the read (SignedIn.At is the database's)
}

// left is how long the session has left, on the database's clock (which
// ends it) measured from the read, and this process's since: its clock
// compared with the session's end told a node 30 s fast that the session
// ended 30 s early.
func (s *liveSession) left() time.Duration {
	return s.Session.ExpiresAt.Sub(s.At) - time.Since(s.readAt)
}

type sessionKey struct{}

// thisSession is the session of the request's signed-in person
// (sessionUser found it), nil if none.
func (d *Dashboard) thisSession(c *fiber.Ctx) *liveSession {
	in, _ := c.Locals(sessionKey{}).(*liveSession)
	return in
}

// thisToken is the token of the request's session, "" if none.
func (d *Dashboard) thisToken(c *fiber.Ctx) string {
	if in := d.thisSession(c); in != nil {
		return in.token
	}
	return ""
}

// streamSession is sessionUser for a live stream, with its session;
// u.ID is 0 when nobody is signed in.
func (d *Dashboard) streamSession(c *fiber.Ctx) (u app.User, s *liveSession, err error) {
	u, ok, err := d.sessionUser(c)
	if !ok {
		return app.User{}, nil, err
	}
	return u, d.thisSession(c), nil
}

// startSession signs user in on this browser: a session of theirs
// (app.Accounts.StartSession), named for the browser its User-Agent says.
func (d *Dashboard) startSession(c *fiber.Ctx, user app.User) error {
	token, s, err := d.accounts.StartSession(c.UserContext(), user.ID, deviceOf(c.Get(fiber.HeaderUserAgent)))
	if err != nil {
		return err
	}
	d.setCookie(c, sessionCookie, d.sign.seal("session", session{Token: token, Expires: s.CreatedAt.Add(sessionTTL).Unix()}), sessionTTL)
	return nil
}
