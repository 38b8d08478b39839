package dashboard

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
)

// TestRateLimitStrangers, through the real HTTP server behind a trusted
// proxy (127.0.0.1, the test, says whom it forwards for): a burst to an
// invitation from one address, then 429 with Retry-After and a page saying
// when, on every stranger's page of that address; a refused pick changes
// nothing; a spoofed X-Forwarded-For does not help; signed-in pages and
// static files of the same address, and another address, are not limited;
// a token comes back after Retry-After (a clock the test moves).
func TestRateLimitStrangers(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	b := setup(t, func(c *Config) {
		c.RateLimit = ratelimit.Limit{Rate: 1, Burst: 5}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.Now = clk.now
	})
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Title: "Intro call", Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-07T09:00:00+01:00","end":"2026-12-07T09:30:00+01:00"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	invite := "/i/" + open.InviteCode
	before := b.dbState()
	stranger := b.visitor("203.0.113.7")
	for i := range 5 {
		if st, _, _ := stranger.do(http.MethodGet, invite, nil); st != http.StatusOK {
			t.Fatalf("request %d of the burst: %d", i+1, st)
		}
	}
	pick := url.Values{"verdict": {"approve"}, "subject_hash": {stranger.hash}}
	st, header, body := stranger.do(http.MethodGet, invite, nil)
	if st != http.StatusTooManyRequests || header.Get("Retry-After") != "1" || !strings.Contains(body, "Try again in 1 second.") {
		t.Fatalf("past the burst: %d, Retry-After %q, %s", st, header.Get("Retry-After"), body)
	}
	if st, _, _ := stranger.do(http.MethodPost, invite, pick); st != http.StatusTooManyRequests {
		t.Fatalf("a pick past the burst: %d", st)
	}
	if after := b.dbState(); after != before {
		t.Fatalf("a refused pick changed the database:\n%s\n%s", before, after)
	}
	// Every stranger's page (Mount's strangerPage and strangerStream)
	// shares the bucket; the two one-click POSTs have their own
	// (TestOneClickBucket).
	for _, path := range []string{"/login", "/auth/callback?state=x&code=y", "/c/ot_x", "/p/ps_x", "/p/ps_x/events", "/unsubscribe/x",
		"/refuse/x", "/signup", "/join/x", "/verify", "/oauth/authorize"} {
		if st, _, _ := stranger.do(http.MethodGet, path, nil); st != http.StatusTooManyRequests {
			t.Errorf("GET %s from the same address: %d, want 429", path, st)
		}
	}
	for _, path := range []string{"/c/ot_x", "/p/ps_x", "/signup", "/join/x", "/verify", "/zone", "/i/x"} {
		if st, _, _ := stranger.do(http.MethodPost, path, url.Values{}); st != http.StatusTooManyRequests {
			t.Errorf("POST %s from the same address: %d, want 429", path, st)
		}
	}
	for _, path := range []string{"/unsubscribe/x", "/refuse/x"} {
		if st, _, _ := stranger.do(http.MethodPost, path, url.Values{}); st == http.StatusTooManyRequests {
			t.Errorf("one-click POST %s from the same address: %d, want its own bucket", path, st)
		}
	}
	if st, _, _ := b.visitor("198.51.100.1, 203.0.113.7").do(http.MethodGet, invite, nil); st != http.StatusTooManyRequests {
		t.Fatalf("a spoofed X-Forwarded-For got through: %d", st)
	}

	alice := b.visitor("203.0.113.7")
	alice.signIn(b.dash, b.alice)
	for _, path := range []string{"/", "/settings", "/static/app.css", "/sw.js"} {
		if st, _, _ := alice.do(http.MethodGet, path, nil); st != http.StatusOK {
			t.Errorf("GET %s signed in, from the limited address: %d", path, st)
		}
	}

	other := b.visitor("203.0.113.8")
	if st, _, _ := other.do(http.MethodGet, invite, nil); st != http.StatusOK {
		t.Fatalf("another address: %d", st)
	}
	if st, header, _ := other.do(http.MethodPost, invite, url.Values{"verdict": {"approve"}, "subject_hash": {other.hash}}); st != http.StatusSeeOther ||
		!strings.HasPrefix(header.Get("Location"), "/p/ps_") {
		t.Fatalf("another address's pick: %d %q", st, header.Get("Location"))
	}
	if st, _, _ := b.visitor("").do(http.MethodGet, invite, nil); st != http.StatusOK {
		t.Fatalf("the proxy's own requests: %d", st)
	}

	clk.add(time.Second)
	if st, _, body := stranger.do(http.MethodGet, invite, nil); st != http.StatusOK || !strings.Contains(body, "answered already") {
		t.Fatalf("a second later: %d", st)
	}
	if st, _, _ := stranger.do(http.MethodGet, invite, nil); st != http.StatusTooManyRequests {
		t.Fatalf("a second later, two requests: %d", st)
	}
}

// TestRateLimitOff: the zero RateLimit limits nothing.
func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	v := b.visitor("")
	for i := range 60 {
		if st, _, _ := v.do(http.MethodGet, "/i/nope", nil); st == http.StatusTooManyRequests {
			t.Fatalf("request %d limited with no limit set", i+1)
		}
	}
}

// TestClientAddr: whom a request counts against, from the connection's
// address and X-Forwarded-For.
func TestClientAddr(t *testing.T) {
	d := &Dashboard{trusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}}
	tests := []struct {
		peer      string
		forwarded []string
		want      string
	}{
		{"203.0.113.9", []string{"198.51.100.1"}, "203.0.113.9"},                 // not from a proxy: the header is the client's
		{"127.0.0.1", nil, "127.0.0.1"},                                          // the proxy's own request
		{"127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"},                  // forwarded
		{"127.0.0.1", []string{"6.6.6.6, 198.51.100.1"}, "198.51.100.1"},         // the client wrote 6.6.6.6
		{"127.0.0.1", []string{"6.6.6.6,198.51.100.1,10.0.0.5"}, "198.51.100.1"}, // two proxies
		{"127.0.0.1", []string{"6.6.6.6", "198.51.100.1"}, "198.51.100.1"},       // one header each
		{"127.0.0.1", []string{"nonsense, 198.51.100.1"}, "198.51.100.1"},        // nonsense left of the client
		{"127.0.0.1", []string{"198.51.100.1, nonsense"}, "127.0.0.1"},           // the proxy wrote nonsense
		{"127.0.0.1", []string{"198.51.100.1,"}, "127.0.0.1"},                    // an empty entry
		{"127.0.0.1", []string{"10.0.0.5"}, "10.0.0.5"},                          // proxies all the way
		{"127.0.0.1", []string{"198.51.100.1:4711"}, "198.51.100.1"},             // with a port
		{"127.0.0.1", []string{"[2001:db8:1:2::9]:443"}, "2001:db8:1:2::"},       // IPv6 with a port, its /64
		{"127.0.0.1", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},           // IPv4 mapped into IPv6
		{"2001:db8:1:2:3:4:5:6", nil, "2001:db8:1:2::"},                          // an IPv6 client: its /64
		{"::ffff:127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"},           // a mapped proxy address
	}
	for _, tt := range tests {
		var fwd [][]byte
		for _, f := range tt.forwarded {
			fwd = append(fwd, []byte(f))
		}
		if got := d.clientOf(netip.MustParseAddr(tt.peer), fwd); got != netip.MustParseAddr(tt.want) {
			t.Errorf("from %s with %q: %s, want %s", tt.peer, tt.forwarded, got, tt.want)
		}
	}
	none := &Dashboard{}
	if got := none.clientOf(netip.MustParseAddr("127.0.0.1"), [][]byte{[]byte("198.51.100.1")}); got != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("no trusted proxy, and X-Forwarded-For believed: %s", got)
	}
}

// dbState is what a stranger's page could change: rooms, seats, events,
// confirmations, one-tap tokens, jobs.
func (b *bundle) dbState() string {
	b.t.Helper()
	var out string
	err := b.pool.QueryRow(b.ctx, `SELECT
		(SELECT coalesce(string_agg(id || ':' || state || ':' || seq, ',' ORDER BY id), '') FROM rooms) || '#' ||
		(SELECT count(*)::text FROM parties) || '#' || (SELECT count(*)::text FROM room_events) || '#' ||
		(SELECT count(*)::text FROM confirmations) || '#' || (SELECT count(*)::text FROM onetap_tokens) || '#' ||
		(SELECT count(*)::text FROM river_job)`).Scan(&out)
	if err != nil {
		b.t.Fatal(err)
	}
	return out
}

// testClock is a clock the test moves; the server reads it from its own
// goroutines.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// visitor is a browser that reaches the real server through a proxy at
// 127.0.0.1, which forwards for the address in forwardedFor ("": its own
// request). It keeps cookies, the CSRF token and the first pick button's
// subject hash of the last page.
type visitor struct {
	b            *bundle
	forwardedFor string
	http         *http.Client
	token, hash  string
}

var pickHash = regexp.MustCompile(`name="subject_hash" value="([^"]+)"`)

func (b *bundle) visitor(forwardedFor string) *visitor {
	jar, err := cookiejar.New(nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return &visitor{b: b, forwardedFor: forwardedFor, http: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (v *visitor) signIn(d *Dashboard, u app.User) {
	base, _ := url.Parse(v.b.base)
	v.http.Jar.SetCookies(base, []*http.Cookie{{Name: sessionCookie, Path: "/",
		Value: v.b.sealedSession(d, u, app.SessionDevice{})}})
}

// do sends a request (a form, with the CSRF token, when form is not nil)
// and returns the status, the headers and the body. A stream's body is
// not read.
func (v *visitor) do(method, path string, form url.Values) (int, http.Header, string) {
	v.b.t.Helper()
	var body io.Reader
	if form != nil {
		form.Set(csrfField, v.token)
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, v.b.base+path, body)
	if err != nil {
		v.b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if v.forwardedFor != "" {
		req.Header.Set("X-Forwarded-For", v.forwardedFor)
	}
	resp, err := v.http.Do(req)
	if err != nil {
		v.b.t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, resp.Header, ""
	}
	out, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, io.EOF) {
		v.b.t.Fatal(err)
	}
	if m := csrfInput.FindSubmatch(out); m != nil {
		v.token = string(m[1])
	}
	if m := pickHash.FindSubmatch(out); m != nil {
		v.hash = string(m[1])
	}
	return resp.StatusCode, resp.Header, string(out)
}

// TestOneClickBucket: the one-click POSTs (RFC 8058 unsubscribe and
// refuse) of one address have a bucket of their own, oneClickFactor times
// the strangers': a mail provider's server sends that many before 429
// with Retry-After, and they spend none of the strangers' budget of its
// address (its people's pages are still served).
func TestOneClickBucket(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()}
	b := setup(t, func(c *Config) {
		c.RateLimit = ratelimit.Limit{Rate: 1, Burst: 5}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.Now = clk.now
	})
	provider := b.visitor("192.0.2.25")
	for i := range 5 * oneClickFactor {
		path := "/unsubscribe/x"
		if i%2 == 1 {
			path = "/refuse/x"
		}
		if st, _, _ := provider.do(http.MethodPost, path, url.Values{}); st == http.StatusTooManyRequests {
			t.Fatalf("one-click POST %d of %d: 429", i+1, 5*oneClickFactor)
		}
	}
	st, header, _ := provider.do(http.MethodPost, "/unsubscribe/x", url.Values{})
	if st != http.StatusTooManyRequests || header.Get("Retry-After") == "" {
		t.Fatalf("past the one-click burst: %d, Retry-After %q", st, header.Get("Retry-After"))
	}
	for i := range 5 {
		if st, _, _ := provider.do(http.MethodGet, "/unsubscribe/x", nil); st == http.StatusTooManyRequests {
			t.Fatalf("a stranger's page %d of 5 from the provider's address: 429", i+1)
		}
	}
	if st, _, _ := provider.do(http.MethodGet, "/unsubscribe/x", nil); st != http.StatusTooManyRequests {
		t.Errorf("the strangers' bucket, past its burst: %d, want 429", st)
	}
}
