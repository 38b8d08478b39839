package trust

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var (
	tags   = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]*>`)
	spaces = regexp.MustCompile(`\s+`)
)

// pageText is what a person reads on a page: its text, without markup.
func pageText(body string) string {
	if i := strings.Index(body, "<main"); i >= 0 {
		body = body[i:]
	}
	return strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(body, " ")), " "))
}

// pageState is what a page or form could change besides the rooms.
func (s *stack) pageState() string {
	s.t.Helper()
	var out string
	err := s.pool.QueryRow(s.ctx, `SELECT
		(SELECT count(*)::text FROM agents) || '#' || (SELECT count(*)::text FROM agent_keys WHERE revoked_at IS NULL) || '#' ||
		(SELECT coalesce(string_agg(id || ':' || time_zone, ',' ORDER BY id), '') FROM users) || '#' ||
		(SELECT count(*)::text FROM notification_prefs) || '#' || (SELECT count(*)::text FROM push_subscriptions)`).Scan(&out)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.state() + "#" + out
}

// TestBadInputPages aims at the dashboard's pages and forms, signed in and
// not: bad ids, tokens and codes, answers and forms that break the rules,
// injection strings, forged or missing CSRF tokens. Each must be answered
// without a 5xx, with the reason on the page, and change nothing.
func TestBadInputPages(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 3, dashboard: true})
	a, b, c := s.tenants[0], s.tenants[1], s.tenants[2]
	_, tb, roomID := s.pair(a, b, raceSchema, nil, nil, feeTerms(10))
	_, _, otherRoom := s.pair(a, c, raceSchema, nil, nil, feeTerms(11)) // b is no party of it
	hash := tableHash(b.must("negotiation_read", map[string]any{"room_token": tb}).out)
	cid := b.must("negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": hash}).str("pending_confirmation", "id")
	br := b.browser()
	br.do("GET", "/settings", nil) // a CSRF token
	anon := s.signedOut()
	anon.do("GET", "/", nil)

	room := fmt.Sprint(roomID)
	other := fmt.Sprint(otherRoom)
	long := strings.Repeat("z", 5000)
	type pcase struct {
		who    *browser
		method string
		path   string
		form   url.Values
		want   string // on the page; "" when only the status matters
	}
	f := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	cases := []pcase{
		{br, "GET", "/rooms/abc", nil, "room not found"},
		{br, "GET", "/rooms/-1", nil, "room not found"},
		{br, "GET", "/rooms/0", nil, "room not found"},
		{br, "GET", "/rooms/99999999999999999999", nil, "room not found"},
		{br, "GET", "/rooms/1e3", nil, "room not found"},
		{br, "GET", "/rooms/" + other, nil, "room not found"},
		{br, "GET", "/rooms/" + room + "?side=x", nil, ""},
		{br, "GET", "/?state=%27%20OR%201%3D1%20--", nil, "state: must be one of"},
		{br, "GET", "/?after=abc", nil, "cursor: not one this list gave"},
		{br, "GET", "/?after=-1", nil, "cursor: not one this list gave"},
		{br, "GET", "/settings/deliveries?after=abc", nil, ""},
		{br, "GET", "/c/garbage", nil, "not valid"},
		{br, "GET", "/c/ot_" + strings.Repeat("A", 43), nil, "not valid"},
		{br, "GET", "/c/" + long, nil, ""},
		{br, "GET", "/c/%00", nil, "this link is not valid"},
		{br, "GET", "/i/garbage", nil, "this invitation link is not valid"},
		{br, "GET", "/i/%27%20OR%201%3D1%20--", nil, "this invitation link is not valid"},
		{br, "GET", "/p/garbage", nil, "this link is not valid"},
		{br, "GET", "/p/" + long, nil, ""},
		{br, "GET", "/unsubscribe/garbage", nil, "unsubscribe link is not valid"},
		{br, "GET", "/static/..%2f..%2fgo.mod", nil, ""},
		{anon, "GET", "/rooms/" + room, nil, ""},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "maybe", "confirmation_id", cid, "subject_hash", hash), "answer: must be confirm or decline"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "subject_hash", hash), "confirmation_id: required"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", "cf_bogus", "subject_hash", hash), "confirmation not found"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", "'; DROP TABLE rooms; --", "subject_hash", hash), "confirmation not found"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", cid, "subject_hash", "sha256:"+strings.Repeat("0", 64)), "subject_hash"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", cid), "subject_hash"},
		{br, "POST", "/rooms/abc/decide", f("answer", "confirm", "confirmation_id", cid, "subject_hash", hash), "room not found"},
		{br, "POST", "/rooms/" + other + "/decide", f("answer", "confirm", "confirmation_id", cid, "subject_hash", hash), "not found"},
		{br, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", cid, "subject_hash", hash, "_csrf", "forged"), "This form has expired"},
		{anon, "POST", "/rooms/" + room + "/decide", f("answer", "confirm", "confirmation_id", cid, "subject_hash", hash), "This form has expired"},
		{br, "POST", "/c/garbage", f("answer", "confirm", "subject_hash", hash), "not valid"},
		{br, "POST", "/c/ot_" + strings.Repeat("A", 43), f("answer", "maybe"), "not valid"},
		{br, "POST", "/i/garbage", f("verdict", "approve", "subject_hash", hash), "this invitation link is not valid"},
		{br, "POST", "/p/garbage", f("verdict", "approve", "subject_hash", hash), "this link is not valid"},
		{br, "POST", "/settings/timezone", f("time_zone", "Mars/Olympus"), "time zone"},
		{br, "POST", "/settings/timezone", f("time_zone", "../../../../etc/passwd"), "time zone"},
		{br, "POST", "/settings/timezone", f("time_zone", ""), "time zone"},
		{br, "POST", "/settings/timezone", f("time_zone", long), "time zone"},
		{br, "POST", "/settings/agents", f("account", b.slug, "name", ""), "name"},
		{br, "POST", "/settings/agents", f("account", b.slug, "name", strings.Repeat("n", 81)), "name"},
		{br, "POST", "/settings/agents", f("account", b.slug, "name", "agent"), "already taken"},
		{br, "POST", "/settings/agents", f("account", a.slug, "name", "mole"), "you are not a member"},
		{br, "POST", "/settings/agents", f("account", "' OR 1=1 --", "name", "mole"), "you are not a member"},
		{br, "POST", "/settings/agents/abc/keys", f("account", b.slug), "no agent abc"},
		{br, "POST", "/settings/agents/" + fmt.Sprint(a.agent.ID) + "/keys", f("account", a.slug), "you are not a member"},
		{br, "POST", "/settings/agents/" + fmt.Sprint(a.agent.ID) + "/keys", f("account", b.slug), "no agent"},
		{br, "POST", "/settings/keys/abc/revoke", f("account", b.slug, "agent", fmt.Sprint(b.agent.ID)), "no key abc"},
		{br, "POST", "/settings/keys/" + fmt.Sprint(a.keyID) + "/revoke", f("account", a.slug, "agent", fmt.Sprint(a.agent.ID)), "you are not a member"},
		{br, "POST", "/settings/keys/" + fmt.Sprint(a.keyID) + "/revoke", f("account", b.slug, "agent", fmt.Sprint(b.agent.ID)), "no key"},
		{br, "POST", "/settings/push", f("endpoint", "javascript:alert(1)", "p256dh", "x", "auth", "y"), "not configured"},
		{br, "POST", "/settings/push/remove", f("id", "abc"), "device: which one?"},
		{br, "POST", "/settings/push/test", f("id", "-1"), "not configured"},
		{br, "POST", "/settings/sessions/end", f("id", "abc"), "session: which one?"},
		{br, "POST", "/settings/sessions/end", f("id", "999999999"), "session: that session has ended already"},
		{br, "POST", "/logout", f("_csrf", "forged"), "This form has expired"},
		{br, "POST", "/unsubscribe/garbage", nil, "unsubscribe link is not valid"},
	}
	before := s.pageState()
	bad5xx, unclear := 0, 0
	for i, pc := range cases {
		st, loc, body := pc.who.do(pc.method, pc.path, pc.form)
		text := pageText(body)
		switch {
		case st >= 500:
			bad5xx++
			t.Errorf("case %d %s %s: HTTP %d %s", i, pc.method, clipArgs(pc.path), st, tail(text, 300))
		case pc.want != "" && !strings.Contains(text, pc.want):
			unclear++
			t.Errorf("case %d %s %s: HTTP %d, the page says %q; want it to say %q", i, pc.method, clipArgs(pc.path), st, tail(text, 300), pc.want)
		case st >= 300 && st < 400 && (strings.HasPrefix(loc, "//") || strings.Contains(loc, "://") && !strings.HasPrefix(loc, s.base)):
			t.Errorf("case %d %s %s: redirected off the site, to %q", i, pc.method, clipArgs(pc.path), loc)
		}
		if testing.Verbose() {
			t.Logf("case %d %s %s: %d %s %s", i, pc.method, clipArgs(pc.path), st, loc, clipArgs(text))
		}
		if after := s.pageState(); after != before {
			t.Errorf("case %d %s %s (HTTP %d) changed what is stored", i, pc.method, clipArgs(pc.path), st)
			before = after
		}
	}
	t.Logf("bad input to the dashboard: %d requests; 5xx: %d; unclear: %d", len(cases), bad5xx, unclear)
}
