package dashboard

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestSignOutEndsTheSession: a copy of the session cookie (taken from a
// shared computer, a proxy's log) stops working when its person signs
// out, not 14 days later; the person signs in again and is in; a sign-out
// with a forged cookie ends nobody's session.
func TestSignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cl := b.client(&b.alice)
	thief := b.client(nil)
	thief.cookies[sessionCookie] = cl.cookies[sessionCookie]
	if st, _, _ := thief.get("/settings"); st != http.StatusOK {
		t.Fatalf("the copied cookie before the sign-out: %d", st)
	}
	other := b.client(&b.bob) // another person's session is theirs
	forged := b.client(nil)
	forged.cookies[sessionCookie] = strings.TrimSuffix(cl.cookies[sessionCookie], "A") + "B"
	cl.get("/settings")
	forged.cookies[csrfCookie], forged.token = cl.cookies[csrfCookie], cl.token
	if st, loc, _ := forged.post("/logout", nil); st != http.StatusSeeOther || loc != "/signed-out" {
		t.Fatalf("sign-out with a forged cookie: %d %q", st, loc)
	}
	if st, _, _ := thief.get("/settings"); st != http.StatusOK {
		t.Fatalf("a forged cookie's sign-out ended alice's session: %d", st)
	}

	cl.get("/settings")
	ended := cl.cookies[sessionCookie]
	if st, loc, body := cl.post("/logout", nil); st != http.StatusSeeOther || loc != "/signed-out" {
		t.Fatalf("sign-out: %d %q %s", st, loc, body)
	}
	if st, loc, _ := thief.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("the copied cookie after the sign-out: %d %q, want sent to sign in", st, loc)
	}
	if _, ok := thief.cookies[sessionCookie]; ok {
		t.Error("the ended session's cookie is not cleared")
	}
	thief.cookies[sessionCookie] = ended // the ended session's, sent again
	if st, _, _ := thief.post("/settings/timezone", url.Values{"time_zone": {"Europe/Paris"}}); st != http.StatusSeeOther {
		t.Fatalf("a post with the ended session: %d", st)
	}
	if u, err := b.accounts.UserByID(b.ctx, b.alice.ID); err != nil || u.TimeZone == "Europe/Paris" {
		t.Fatalf("a post with the ended session changed the user: %v %q", err, u.TimeZone)
	}
	if st, _, _ := other.get("/settings"); st != http.StatusOK {
		t.Fatalf("bob's session after alice's sign-out: %d", st)
	}
	_, _, body := cl.get("/signed-out")
	if !strings.Contains(body, "signed out of this browser") {
		t.Errorf("the signed-out page does not say this browser was signed out:\n%s", body)
	}

	// Signed in again: in.
	again := b.client(&b.alice)
	if st, _, _ := again.get("/settings"); st != http.StatusOK {
		t.Fatalf("signed in again: %d", st)
	}
}

// TestCallbackChecksTheStateFirst: a link to the sign-in's callback that
// is not this browser's sign-in (no state, or another) is refused as such
// before anything it says is shown: its error_description does not appear
// as the identity provider's words, and the sign-in in progress goes on.
// The provider's own refusal, with the state, is shown.
func TestCallbackChecksTheStateFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cl := b.client(nil)
	if st, _, _ := cl.get("/login"); st != http.StatusSeeOther {
		t.Fatalf("login: %d", st)
	}
	var ls loginState
	if !b.dash.sign.open("login", cl.cookies[loginCookie], &ls) {
		t.Fatal("no login in progress")
	}
	lure := "Your account is locked. Call support at 555-0100"
	for _, q := range []string{"", "&state=forged"} {
		st, _, body := cl.get("/auth/callback?error=server_error&error_description=" + url.QueryEscape(lure) + q)
		if st != http.StatusBadRequest || strings.Contains(body, "555-0100") || !strings.Contains(body, "this answer is not for the sign-in") {
			t.Fatalf("callback with an error and state %q: %d\n%s", q, st, body)
		}
		if cl.cookies[loginCookie] == "" {
			t.Fatalf("a callback that is not this browser's (state %q) ended its sign-in", q)
		}
	}
	st, _, body := cl.get("/auth/callback?error=access_denied&error_description=The+person+declined&state=" + url.QueryEscape(ls.State))
	if st != http.StatusUnauthorized || !strings.Contains(body, "refused the sign-in (access_denied): The person declined") {
		t.Fatalf("the provider's refusal: %d\n%s", st, body)
	}
	if cl.cookies[loginCookie] != "" {
		t.Error("the sign-in's cookie outlived its answer")
	}
}

// TestCookiesAreHostOnlyUnderHTTPS: under an https BASE_URL every cookie
// is named __Host-… (Secure, Path=/, no Domain), which a browser takes
// only from this very host: a site on a sibling subdomain cannot toss in
// a session of its choosing or a CSRF cookie whose token it knows. A
// cookie by the bare name, as such a site could set, is not read.
func TestCookiesAreHostOnlyUnderHTTPS(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config) { c.BaseURL = "https://taasky.example" })
	hostOnly := func(what string, h http.Header, name string) {
		t.Helper()
		for _, sc := range h.Values("Set-Cookie") {
			if strings.HasPrefix(sc, name+"=") {
				l := strings.ToLower(sc)
				if !strings.Contains(l, "; secure") || !strings.Contains(l, "path=/;") && !strings.HasSuffix(l, "path=/") || strings.Contains(l, "domain=") {
					t.Errorf("%s: %s is not host-only: %s", what, name, sc)
				}
				return
			}
		}
		t.Errorf("%s: no cookie %s in %q", what, name, h.Values("Set-Cookie"))
	}
	alice := b.sessionOf(b.alice)

	tossed := b.client(nil) // a sibling subdomain set taasky_session=… for the whole domain
	tossed.cookies["taasky_session"] = alice
	if st, loc, _ := tossed.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("a session cookie without __Host- was read: %d %q", st, loc)
	}
	hostOnly("a page", tossed.header, "__Host-taasky_csrf")

	cl := b.client(nil)
	cl.cookies["__Host-taasky_session"] = alice
	if st, _, body := cl.get("/settings"); st != http.StatusOK || !strings.Contains(body, "Alpha Studio") {
		t.Fatalf("signed in with __Host-taasky_session: %d", st)
	}
	cl.cookies["taasky_csrf"] = tossed.token // the token a sibling site got for itself, tossed as a bare cookie
	tossedToken := tossed.token
	own := cl.cookies["__Host-taasky_csrf"]
	delete(cl.cookies, "__Host-taasky_csrf")
	if st, _, _ := cl.do(http.MethodPost, "/settings/timezone", url.Values{"time_zone": {"Asia/Tokyo"}, csrfField: {tossedToken}}); st != http.StatusForbidden {
		t.Fatalf("a form with a tossed CSRF cookie's token: %d, want 403", st)
	}
	if u, err := b.accounts.UserByID(b.ctx, b.alice.ID); err != nil || u.TimeZone == "Asia/Tokyo" {
		t.Fatalf("the tossed CSRF cookie changed the user: %v %q", err, u.TimeZone)
	}
	cl.cookies["__Host-taasky_csrf"] = own
	cl.get("/settings")
	if st, _, _ := cl.post("/logout", nil); st != http.StatusSeeOther {
		t.Fatalf("logout: %d", st)
	}
	hostOnly("the sign-out", cl.header, "__Host-taasky_session")

	if st, _, _ := cl.get("/login"); st != http.StatusSeeOther {
		t.Fatalf("login: %d", st)
	}
	hostOnly("a sign-in", cl.header, "__Host-taasky_login")
}

// seatIn is the personal token the client's browser remembers for the
// room ("" for none).
func seatIn(cl *client, roomID int64) string {
	room := strconv.FormatInt(roomID, 10) + ":"
	for _, e := range strings.Split(cl.cookies[seatsCookie], ".") {
		if token, ok := strings.CutPrefix(e, room); ok {
			return token
		}
	}
	return ""
}

// TestSeatsDoNotGrowTheCookies: a browser that opened many personal links
// (a person who answered many invitations, or a page that made their
// browser open fifty links of someone else's) keeps one small cookie for
// them, not one per room: its requests stay within what the server reads,
// and its latest seats still take it from their invitations to their
// seats.
func TestSeatsDoNotGrowTheCookies(t *testing.T) {
	t.Parallel()
	b := setup(t)
	browser := b.client(&b.carol)
	type seat struct {
		code, token string
		room        int64
	}
	var seats []seat
	for i := range 60 {
		open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(10+i%15, 9, "video", ""), Title: "Room " + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		someone := b.client(nil)
		_, _, page := someone.get("/i/" + open.InviteCode)
		st, loc, body := someone.post("/i/"+open.InviteCode, url.Values{"verdict": {"reject"}, seatNonceField: {valueShown(page, seatNonceField)}})
		if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/") {
			t.Fatalf("answering invitation %d: %d %q %.300s", i, st, loc, body)
		}
		token := strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
		seats = append(seats, seat{open.InviteCode, token, open.View.RoomID})
		if st, _, _ := browser.get("/p/" + token); st != http.StatusOK {
			t.Fatalf("personal link %d: %d", i, st)
		}
	}
	size := 0
	for k, v := range browser.cookies {
		size += len(k) + len(v) + 3
	}
	if size > 1500 {
		t.Errorf("after 60 personal links the browser sends %d bytes of cookies", size)
	}
	// Through the real server, with the headers a browser sends.
	req, _ := http.NewRequest(http.MethodGet, b.base+"/settings", nil)
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8")
	req.Header.Set("Accept-Language", "en-GB,en;q=0.9")
	for k, v := range browser.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the signed-in pages after 60 personal links: %d", resp.StatusCode)
	}
	latest := seats[len(seats)-1]
	if st, loc, _ := browser.get("/i/" + latest.code); st != http.StatusSeeOther || loc != "/p/"+latest.token {
		t.Fatalf("the latest seat's invitation: %d %q, want its seat", st, loc)
	}
	first := seats[0]
	browser.get("/p/" + first.token) // opened again: remembered first
	if seatIn(browser, first.room) != first.token || seatIn(browser, latest.room) != latest.token {
		t.Fatalf("the seats remembered: %q", browser.cookies[seatsCookie])
	}
}

// TestSealedValueHasOneSpelling: a sealed cookie's last character carries
// spare bits; one that differs only there is another spelling of the same
// bytes, and is refused (it made TestSignOutEndsTheSession's forgery the
// real cookie about one run in 64).
func TestSealedValueHasOneSpelling(t *testing.T) {
	s := signer{key: bytes.Repeat([]byte{7}, 32)}
	for i := range 64 {
		sealed := s.seal("session", session{Token: strconv.Itoa(i)})
		var got session
		if !s.open("session", sealed, &got) || got.Token != strconv.Itoa(i) {
			t.Fatalf("the sealed value itself is refused: %q", sealed)
		}
		// The MAC's 32 bytes end in a character with 2 spare bits.
		last := strings.IndexByte(b64URL, sealed[len(sealed)-1])
		for spare := 1; spare < 4; spare++ {
			other := sealed[:len(sealed)-1] + string(b64URL[last^spare])
			if s.open("session", other, &got) {
				t.Fatalf("%q passes for %q", other, sealed)
			}
		}
	}
}

const b64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
