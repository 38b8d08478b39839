package trust

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/taasky/taasky/dashboard/devoidc"
	"github.com/taasky/taasky/internal/locale"
)

// TestLivePagesAcrossNodes: a person's room page and rooms list are served
// by one node and follow the room live while the agents move through
// another node's MCP endpoint; then the PostgreSQL primary is killed.
// While no server takes writes the page answers 503 with Retry-After and
// words to try again, and its stream, opened again as a browser does, is
// asked to come back later rather than refused. Once the standby is
// promoted the stream opens again by itself, and the page node's LISTEN
// connection, reconnected by itself, tells it of the moves made on the
// other node: nothing restarted. The streams are read here as a browser's
// EventSource reads them, and the room page is open in Chromium too.
func TestLivePagesAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL servers and builds and runs the binary")
	}
	t.Parallel()
	pg := newPGPair(t)
	dsn := pg.DSN()
	issuer := newIssuer(t)
	env := []string{"OIDC_ISSUER=" + issuer.url, "OIDC_CLIENT_ID=dash", "OIDC_CLIENT_SECRET=dash-secret",
		"MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0", "SHUTDOWN_GRACE=0"}
	pages, agents := newProcess(t, dsn, env...), newProcess(t, dsn, env...)
	issuer.serve(pages.base, agents.base)
	pages.start()
	agents.start()
	w := newWorld(t, dsn, pages.base)
	a, b := newRemote(t, w, agents.base, "livea"), newRemote(t, w, agents.base, "liveb")
	tab := chromiumTab(t)
	l := newCrashLoad(t, w)
	ctx := context.Background()
	move := func(r *remote, side string, args map[string]any, in histIn) map[string]any {
		t.Helper()
		in.room, in.side = 1, side
		res, _, err := l.do(ctx, r, "negotiation_"+in.kind, args, in)
		if err != nil || res.err != "" {
			t.Fatalf("%s %s: %v %s", r.slug, in.kind, err, res.err)
		}
		return res.out
	}
	open := move(a, "a", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(1)}, histIn{kind: "open", hash: termsHash(feeTerms(1))})
	join := move(b, "b", map[string]any{"invite_code": open["invite_code"], "subject_schema": raceSchema}, histIn{kind: "join"})
	counter := func(r *remote, side string, token any, fee int) {
		move(r, side, map[string]any{"room_token": token, "verdict": "counter", "subject": feeTerms(fee)},
			histIn{kind: "propose", verdict: "counter", hash: termsHash(feeTerms(fee))})
	}
	v, err := w.rooms.Read(ctx, a.agent, open["room_token"].(string))
	if err != nil {
		t.Fatal(err)
	}
	roomPath := fmt.Sprintf("/rooms/%d", v.RoomID)

	jar, _ := cookiejar.New(nil)
	signIn(t, jar, pages.base, a.email)
	person := &http.Client{Jar: jar, Transport: transport}
	room := followStream(t, person, pages.base+roomPath+"/events")
	list := followStream(t, person, pages.base+"/events")
	room.await("the room page's stream opens", "open")
	list.await("the list's stream opens", "open")
	// And the page in a browser, signed in as the same person: the session
	// cookie is handed over (the development issuer's login form may only
	// lead back to its own origin, by its CSP, and here it is on another
	// port than the page node). The page is shown through a proxy the test
	// can cut.
	proxy := newCutter(t, pages.addr)
	pagesURL, _ := url.Parse(pages.base)
	for _, ck := range jar.Cookies(pagesURL) {
		for _, u := range []string{pages.base, "http://" + proxy.addr} {
			if _, err := chromedp.Call(tab, network.SetCookie, network.SetCookieParams{Name: ck.Name, Value: ck.Value, URL: u, Path: "/"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	browse(t, tab, "open the room page", chromedp.Navigate("http://"+proxy.addr+roomPath))
	until(t, tab, "the page listens", `document.documentElement.dataset.live === 'open'`)
	browse(t, tab, "mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	browserSees := func(round int) {
		t.Helper()
		until(t, tab, fmt.Sprintf("the browser's page shows round %d", round),
			fmt.Sprintf(`document.querySelector('#room-live [data-round]').textContent === '%d' && window.notReloaded === true`, round))
	}
	// seesRound waits until the page, refreshed at each change its stream
	// tells, shows the round.
	seesRound := func(round int) {
		t.Helper()
		for {
			room.await(fmt.Sprintf("a change that shows round %d", round), "change")
			if got := pageRound(t, person, pages.base+roomPath); got == round {
				return
			}
		}
	}

	counter(b, "b", join["room_token"], 2)
	seesRound(2)
	browserSees(2)
	list.await("the list hears the move made on the other node", "change")

	pg.stopPrimary()
	resp, err := person.Get(pages.base + roomPath)
	if err != nil {
		t.Fatal(err)
	}
	page := readBody(resp)
	if want := locale.English().T("failover.retry"); resp.StatusCode != http.StatusServiceUnavailable ||
		resp.Header.Get("Retry-After") != "5" || !strings.Contains(page, want) {
		t.Errorf("the room page while no server takes writes: %d, Retry-After %q, want 503, 5 and %q:\n%.2000s",
			resp.StatusCode, resp.Header.Get("Retry-After"), want, page)
	}
	// The stream ends (its life is 45 s; here the browser's side ends it)
	// and is opened again while the database is away: it must be asked to
	// come back, not refused (EventSource gives up for good on a refusal).
	room.drop()
	room.await("the stream, opened again during the switch, asked to come back", "come back")
	// The browser's stream is cut too; its EventSource tries again by itself.
	browse(t, tab, "mark the stream", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.live = 'cut'`))
	proxy.cut()
	proxy.restore()

	promoted := time.Now()
	pg.promote()
	room.await("the stream opens again by itself after the promotion", "open")
	reopened := time.Since(promoted)
	until(t, tab, "the browser's stream opens again by itself", `document.documentElement.dataset.live === 'open'`)
	counter(a, "a", open["room_token"], 3)
	seesRound(3)
	browserSees(3)
	counter(b, "b", join["room_token"], 4)
	seesRound(4)
	browserSees(4)
	list.await("the list, whose stream never closed, hears the moves after the switch", "change")
	t.Logf("live pages across nodes: the page on one node saw each move made through the other's MCP; "+
		"during the switch the page answered 503 + Retry-After and its stream was asked to come back; "+
		"the stream open again %s after the promotion; %s", reopened.Round(10*time.Millisecond), l.hist.check(t))
}

var roundOnPage = regexp.MustCompile(`data-round>(\d+)<`)

// pageRound is the round the room's page shows.
func pageRound(t testing.TB, c *http.Client, url string) int {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	page := readBody(resp)
	m := roundOnPage.FindStringSubmatch(page)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("GET %s: %d, no round:\n%.2000s", url, resp.StatusCode, page)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func readBody(resp *http.Response) string {
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// liveStream follows a live page's event stream as a browser's EventSource
// does: when the stream ends or fails in transit it is opened again after
// the delay the server last asked for ("retry:"); any answer but 200 ends
// it for good, as it would in a browser. It tells what happens on events:
// "open" (the server's ": live"), "change", "come back" (a stream that
// ended without opening, the server asking to be tried again later), or
// "refused: <status>".
type liveStream struct {
	t      testing.TB
	events chan string
	mu     sync.Mutex
	cancel context.CancelFunc // the current connection's
}

func followStream(t testing.TB, c *http.Client, url string) *liveStream {
	s := &liveStream{t: t, events: make(chan string, 64)}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { stop(); <-done })
	emit := func(ev string) {
		select {
		case s.events <- ev:
		case <-ctx.Done():
		}
	}
	go func() {
		defer close(done)
		retry := 3 * time.Second // EventSource's default
		for ctx.Err() == nil {
			conn, cancel := context.WithCancel(ctx)
			s.mu.Lock()
			s.cancel = cancel
			s.mu.Unlock()
			opened := false
			req, _ := http.NewRequestWithContext(conn, http.MethodGet, url, nil)
			req.Header.Set("Accept", "text/event-stream")
			resp, err := c.Do(req)
			if err == nil {
				if resp.StatusCode != http.StatusOK {
					emit(fmt.Sprintf("refused: %d", resp.StatusCode))
					resp.Body.Close()
					cancel()
					return
				}
				lines := bufio.NewScanner(resp.Body)
				gone := false
				for lines.Scan() {
					line := lines.Text()
					switch {
					case line == "event: gone":
						gone = true
					case gone && strings.HasPrefix(line, "data: "):
						// The person lost the page: app.js closes the
						// stream for good.
						emit("gone " + strings.TrimPrefix(line, "data: "))
						resp.Body.Close()
						cancel()
						return
					case strings.HasPrefix(line, "retry: "):
						if ms, err := strconv.Atoi(strings.TrimPrefix(line, "retry: ")); err == nil {
							retry = time.Duration(ms) * time.Millisecond
						}
					case line == ": live":
						opened = true
						emit("open")
					case line == "event: change":
						emit("change")
					}
				}
				resp.Body.Close()
				if !opened && conn.Err() == nil {
					emit("come back")
				}
			}
			cancel()
			select { // EventSource's wait before it opens the stream again
			case <-ctx.Done():
			case <-time.After(retry):
			}
		}
	}()
	return s
}

// drop ends the current connection from the browser's side.
func (s *liveStream) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel()
}

// await waits for the event want, skipping others, and fails on a refusal
// or after two minutes without it.
func (s *liveStream) await(what, want string) {
	s.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case ev := <-s.events:
			if ev == want {
				return
			}
			if strings.HasPrefix(ev, "refused") {
				s.t.Fatalf("%s: the stream was %s: a browser gives up for good", what, ev)
			}
		case <-deadline:
			s.t.Fatalf("%s: not seen in 2 minutes", what)
		}
	}
}

// testIssuer is the development OIDC issuer, served by the test for the
// processes under test.
type testIssuer struct {
	t   testing.TB
	ln  net.Listener
	url string
}

func newIssuer(t testing.TB) *testIssuer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return &testIssuer{t: t, ln: ln, url: "http://" + ln.Addr().String() + "/dev-oidc"}
}

// serve starts the issuer for the nodes at bases.
func (i *testIssuer) serve(bases ...string) {
	var redirects []string
	for _, b := range bases {
		redirects = append(redirects, b+"/auth/callback")
	}
	h, err := devoidc.New(devoidc.Config{Issuer: i.url, Clients: []devoidc.Client{{ID: "dash", Secret: "dash-secret", RedirectURIs: redirects}}})
	if err != nil {
		i.t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(i.ln) }()
	i.t.Cleanup(func() { _ = srv.Close() })
}

// chromiumTab starts Debian's chromium, headless, and returns a tab; the
// test is skipped where there is none.
func chromiumTab(t testing.TB) context.Context {
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on this machine: .ci/run must install it")
		}
		t.Skip("no chromium on this machine (apt-get install chromium; .ci/run does)")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(path), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()))
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(tab); err != nil { // the tab lives as long as this first run's context
		t.Fatalf("start chromium: %v", err)
	}
	return tab
}

// browse runs steps in the tab, within 30 s.
func browse(t testing.TB, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(tab, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("%s: %v (%s)", what, err, pageNow(tab))
	}
}

// pageNow is where the tab is and what it shows, for a failure's message.
func pageNow(tab context.Context) string {
	c, cancel := context.WithTimeout(tab, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Evaluate[string](`location.href + ': ' + document.body.innerText.slice(0, 500)`))
	if err != nil {
		return err.Error()
	}
	return s
}

// until waits, up to a minute, for a JavaScript condition on the page.
func until(t testing.TB, tab context.Context, what, js string) {
	t.Helper()
	c, cancel := context.WithTimeout(tab, 90*time.Second)
	defer cancel()
	err := chromedp.Do(c, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](js, chromedp.WithPollingTimeout(time.Minute))(ctx, target)
		return err
	}))
	if err != nil {
		t.Fatalf("%s: %v (%s)", what, err, pageNow(tab))
	}
}
