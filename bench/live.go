package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// LiveOptions says what `taasky bench --live` runs: pages open on the
// dashboard's live streams, agents waiting in negotiation_read, and moves
// in their rooms.
type LiveOptions struct {
	DatabaseURL  string // the started server's database (created afresh by the caller)
	SecretKey    string // the started server's SECRET_KEY
	Seats        Seats  // mints seats with that key (app.Rooms.NewSeatSecrets)
	Pages        int    // live pages held open
	PagesPerRoom int    // pages showing each room (the first a member's rooms list, the others the room's page)
	Waiters      int    // agents waiting in negotiation_read with wait_seconds, one per room
	Rounds       int    // rounds of moves: each makes one move in every room
	MoveRate     int    // moves per second in a round (0: as fast as Movers go)
	Movers       int    // MCP clients making the moves
	PprofAddr    string // where the server serves net/http/pprof ("": nowhere); the bench saves its heap there
	Out          io.Writer
}

// liveRoom is one room of the live bench: its own pair of accounts, an
// agent each, the pages that show it and, for the first Waiters rooms, an
// agent waiting on it.
type liveRoom struct {
	id     int64
	slugs  [2]string // side a's account, side b's
	keys   [2]string // their agents' keys
	tokens [2]string // their seats' tokens
	pages  []*livePage
	waits  bool // an agent waits on it

	// this round's move: sent and answered (unix ns; 0: not yet), failed
	sent, answered atomic.Int64
	failed         atomic.Bool
	waited         atomic.Int64 // when the waiting agent's answer showing the move came (unix ns; 0: not yet)
}

// ServerState is what the server holds at one moment.
type ServerState struct {
	RSSKiB, HWMKiB int64   // VmRSS and VmHWM of its process
	Goroutines     float64 // go_goroutines
	HeapInuse      float64 // go_memstats_heap_inuse_bytes
	Sys            float64 // go_memstats_sys_bytes: all the runtime took from the OS
}

// LiveReport is what a live run measured.
type LiveReport struct {
	Pages, Rooms, Waiters, Rounds int
	PageRooms                     int           // rooms some page shows
	Opened                        time.Duration // to open every page
	Moves, MoveErrors             int64
	FirstError                    error
	MovesPerSec                   float64 // in the rounds' move phases
	// From each move's answer to each page's event, and to the waiting
	// agent's answer; Missed: none came within missAfter of the round's
	// last answer; Early: came before the move's own answer (counted as 0)
	Page, Waiter               Summary
	RoomPage, ListPage         Summary // Page, of the rooms' own pages and of the rooms lists
	PageMissed, WaiterMissed   int
	PageEarly, WaiterEarly     int
	WaitCalls                  int64 // negotiation_read calls the waiters made
	Reopens, PageFails         int64 // streams reopened (the server ends each after 45 s); failures
	Idle, WithPages, WithWaits ServerState
	Collected                  ServerState // with both, right after a GC (--pprof only: the profile asks for it)
	Peak                       ServerState // at the end: its HWMKiB is the run's peak
	HeapProfile                string      // where the heap profile with everything open was saved ("": none)
}

// missAfter is how long after a round's last move answer a page or a
// waiter may still hear of its move; later, it missed it.
const missAfter = 10 * time.Second

// RunLive starts a server, its people and their rooms, opens the pages,
// has the agents wait, makes the rounds of moves and reports.
func RunLive(ctx context.Context, o LiveOptions) (*LiveReport, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	sink, err := StartSink("")
	if err != nil {
		return nil, fmt.Errorf("smtp sink: %w", err)
	}
	defer sink.Close()
	addr, err := FreeAddr()
	if err != nil {
		return nil, err
	}
	base := "http://" + addr
	issuer, err := StartIssuer("", base)
	if err != nil {
		return nil, err
	}
	defer issuer.Close()
	server, err := Start(ctx, addr, "/readyz", []string{
		"DATABASE_URL=" + o.DatabaseURL, "BASE_URL=" + base, "LISTEN_ADDR=" + addr,
		"SECRET_KEY=" + o.SecretKey, "SMTP_URL=smtp://" + sink.Addr,
		"OIDC_ISSUER=" + issuer.URL, "OIDC_CLIENT_ID=" + issuer.ClientID, "OIDC_CLIENT_SECRET=" + issuer.ClientSecret,
		"MCP_RATE_LIMIT=0", "WEB_RATE_LIMIT=0", "COUNTER_COOLDOWN=0s", "PPROF_ADDR=" + o.PprofAddr,
		"SHUTDOWN_GRACE=0",
	}, "serve")
	if err != nil {
		return nil, err
	}
	defer server.Stop()
	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	rep := &LiveReport{Pages: o.Pages, Waiters: o.Waiters, Rounds: o.Rounds}
	t0 := time.Now()
	rooms, emails, err := liveSetup(ctx, pool, o)
	if err != nil {
		return nil, err
	}
	rep.Rooms = len(rooms)
	for _, r := range rooms {
		if len(r.pages) > 0 {
			rep.PageRooms++
		}
	}
	fmt.Fprintf(o.Out, "live: %d rooms, their %d accounts, agents and %d people set up in %s\n",
		len(rooms), 2*len(rooms), len(emails), time.Since(t0).Round(time.Millisecond))

	// Each person signs in through the issuer, as in a browser.
	t0 = time.Now()
	web := &http.Transport{MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second}
	defer web.CloseIdleConnections()
	var pages []*livePage
	for _, r := range rooms {
		pages = append(pages, r.pages...)
	}
	if err := forEach(ctx, len(pages), 8, func(i int) error {
		c, err := SignIn(ctx, web, base, emails[pages[i]])
		pages[i].cookie = c
		return err
	}); err != nil {
		return nil, err
	}
	web.CloseIdleConnections()
	fmt.Fprintf(o.Out, "live: %d people signed in through the OIDC issuer in %s\n", len(pages), time.Since(t0).Round(time.Millisecond))

	settle := func() { time.Sleep(2 * time.Second) }
	settle()
	rep.Idle = serverState(server, base)
	t0 = time.Now()
	defer func() {
		for _, p := range pages {
			p.close()
		}
	}()
	if err := openPages(ctx, pages, addr, addr, 64); err != nil {
		return nil, err
	}
	rep.Opened = time.Since(t0)
	fmt.Fprintf(o.Out, "live: %d pages open in %s\n", len(pages), rep.Opened.Round(time.Millisecond))
	settle()
	rep.WithPages = serverState(server, base)

	mcp := &rawMCP{base: base, client: &http.Client{Timeout: 2 * time.Minute,
		Transport: &http.Transport{MaxIdleConnsPerHost: o.Waiters + o.Movers + 16, IdleConnTimeout: time.Minute,
			ReadBufferSize: 2048, WriteBufferSize: 1024}}}
	pageLat, waitLat := &Latencies{}, &Latencies{}
	var waitCalls atomic.Int64
	for k := range o.Rounds {
		mover := 1 - k%2 // seeded rooms are b's turn first
		for _, r := range rooms {
			r.sent.Store(0)
			r.answered.Store(0)
			r.failed.Store(false)
			r.waited.Store(0)
			for _, p := range r.pages {
				p.arrived.Store(0)
			}
		}
		// The other side waits: negotiation_read with wait_seconds,
		// again each time a wait ends with nothing new, until the room
		// shows the round's move.
		roundCtx, cancel := context.WithCancel(ctx)
		var wrote, waiting sync.WaitGroup
		for _, r := range rooms {
			if !r.waits {
				continue
			}
			wrote.Add(1)
			waiting.Add(1)
			go func() {
				defer waiting.Done()
				r.wait(roundCtx, mcp, 1-mover, k+2, wrote.Done, &waitCalls)
			}()
		}
		wrote.Wait()
		if k == 0 {
			settle()
			rep.WithWaits = serverState(server, base)
			if o.PprofAddr != "" {
				rep.HeapProfile = saveHeap(o.PprofAddr) // after a GC it asks for
				rep.Collected = serverState(server, base)
			}
		} else {
			time.Sleep(time.Second + time.Duration(o.Waiters)*time.Millisecond)
		}
		start := time.Now()
		moves, errs, firstErr := makeMoves(ctx, mcp, rooms, mover, k, o)
		rep.Moves += moves
		rep.MoveErrors += errs
		if firstErr != nil && rep.FirstError == nil {
			rep.FirstError = firstErr
		}
		elapsed := time.Since(start)
		rep.MovesPerSec += float64(moves) / elapsed.Seconds() / float64(o.Rounds)
		// Wait for every page and waiter to hear of its move.
		deadline := time.Now().Add(missAfter)
		for time.Now().Before(deadline) && !allHeard(rooms) {
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
		waiting.Wait()
		for _, r := range rooms {
			if r.failed.Load() || r.sent.Load() == 0 {
				continue
			}
			answered := r.answered.Load()
			for _, p := range r.pages {
				heard(pageLat, "page", &rep.PageMissed, &rep.PageEarly, answered, p.arrived.Load())
				kind := "room page"
				if p.path == "/events" {
					kind = "list page"
				}
				var missed, early int
				heard(pageLat, kind, &missed, &early, answered, p.arrived.Load())
			}
			if r.waits {
				heard(waitLat, "waiter", &rep.WaiterMissed, &rep.WaiterEarly, answered, r.waited.Load())
			}
		}
		fmt.Fprintf(o.Out, "live: round %d: %d moves in %s\n", k+1, moves, elapsed.Round(time.Millisecond))
	}
	rep.Page, rep.Waiter = pageLat.Get("page"), waitLat.Get("waiter")
	rep.RoomPage, rep.ListPage = pageLat.Get("room page"), pageLat.Get("list page")
	rep.WaitCalls = waitCalls.Load()
	for _, p := range pages {
		rep.Reopens += p.reopens.Load()
		rep.PageFails += p.fails.Load()
	}
	rep.Peak = serverState(server, base)
	rep.Print(o.Out)
	return rep, nil
}

// heard records one page's or waiter's latency from the move's answer,
// under name.
func heard(lat *Latencies, name string, missed, early *int, answered, arrived int64) {
	switch {
	case arrived == 0:
		*missed++
	case arrived < answered:
		*early++
		lat.Add(name, 0)
	default:
		lat.Add(name, time.Duration(arrived-answered))
	}
}

func allHeard(rooms []*liveRoom) bool {
	for _, r := range rooms {
		if r.failed.Load() {
			continue
		}
		if r.waits && r.waited.Load() == 0 {
			return false
		}
		for _, p := range r.pages {
			if p.arrived.Load() == 0 {
				return false
			}
		}
	}
	return true
}

// wait is the waiting side's agent: negotiation_read with wait_seconds
// until the room shows round `want`, or ctx ends. wrote is called once the
// first call was sent.
func (r *liveRoom) wait(ctx context.Context, m *rawMCP, side, want int, wrote func(), calls *atomic.Int64) {
	var once sync.Once
	trace := httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { once.Do(wrote) }})
	defer once.Do(wrote)
	for ctx.Err() == nil {
		var v struct {
			Room struct {
				Round int `json:"round"`
			} `json:"room"`
		}
		calls.Add(1)
		err := m.call(trace, r.slugs[side], r.keys[side], "negotiation_read",
			map[string]any{"room_token": r.tokens[side], "wait_seconds": int(app.MaxWait / time.Second)}, &v)
		now := time.Now().UnixNano()
		once.Do(wrote)
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		if v.Room.Round >= want {
			if r.sent.Load() != 0 {
				r.waited.Store(now)
			}
			return
		}
	}
}

// makeMoves has o.Movers clients make one move in every room, side
// mover's counter, in a random order, at o.MoveRate a second.
func makeMoves(ctx context.Context, m *rawMCP, rooms []*liveRoom, mover, round int, o LiveOptions) (moves, errs int64, first error) {
	order := rand.Perm(len(rooms))
	work := make(chan *liveRoom)
	var wg sync.WaitGroup
	var mu sync.Mutex
	start := time.Now().Add(72 * time.Hour).Truncate(time.Hour).Add(time.Duration(round+1) * time.Hour)
	terms := map[string]any{
		"meeting_time": map[string]any{"start": start.Format(time.RFC3339), "end": start.Add(30 * time.Minute).Format(time.RFC3339)},
		"fee":          map[string]any{"amount": strconv.Itoa(101+round) + ".00", "currency": "EUR"},
	}
	for range max(1, o.Movers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				r.sent.Store(time.Now().UnixNano())
				err := m.call(ctx, r.slugs[mover], r.keys[mover], "negotiation_propose",
					map[string]any{"room_token": r.tokens[mover], "verdict": "counter", "subject": terms}, nil)
				r.answered.Store(time.Now().UnixNano())
				mu.Lock()
				if err != nil {
					r.failed.Store(true)
					errs++
					if first == nil {
						first = err
					}
				} else {
					moves++
				}
				mu.Unlock()
			}
		}()
	}
	var tick <-chan time.Time
	if o.MoveRate > 0 {
		t := time.NewTicker(time.Second / time.Duration(o.MoveRate))
		defer t.Stop()
		tick = t.C
	}
	for _, i := range order {
		if tick != nil {
			<-tick
		}
		work <- rooms[i]
	}
	close(work)
	wg.Wait()
	return moves, errs, first
}

// liveSetup creates each room's two accounts (with as many members as
// pages show it: admins, who see every room of the account),
// their agents and the room, seeded; it returns the rooms
// and the email of each page's person.
func liveSetup(ctx context.Context, pool *pgxpool.Pool, o LiveOptions) ([]*liveRoom, map[*livePage]string, error) {
	accounts := app.NewAccounts(pool)
	n := max((o.Pages+o.PagesPerRoom-1)/o.PagesPerRoom, o.Waiters)
	run := randomHex(3)
	rooms := make([]*liveRoom, n)
	emails := map[*livePage]string{}
	for i := range rooms {
		r := &liveRoom{waits: i < o.Waiters}
		r.slugs = [2]string{fmt.Sprintf("lv%s-%da", run, i), fmt.Sprintf("lv%s-%db", run, i)}
		for j := range min(o.PagesPerRoom, o.Pages-i*o.PagesPerRoom) {
			p := &livePage{room: r, opened: make(chan struct{}), path: "/events"}
			if j > 0 {
				p.path = "" // the room's page: its id is known once seeded
			}
			r.pages = append(r.pages, p)
			emails[p] = fmt.Sprintf("%s-%d@bench.test", r.slugs[j%2], j/2)
		}
		rooms[i] = r
	}
	agents := make([][2]app.Agent, n)
	err := forEach(ctx, n, 8, func(i int) error {
		r := rooms[i]
		for s, slug := range r.slugs {
			owner := slug + "-0@bench.test"
			if _, err := accounts.CreateAccount(ctx, slug, slug, owner); err != nil {
				return err
			}
			ag, key, err := accounts.CreateAgent(ctx, slug, "agent", owner)
			if err != nil {
				return err
			}
			agents[i][s], r.keys[s] = ag, key.Key
			for m := 1; 2*m+s < len(r.pages); m++ {
				if err := accounts.AddMemberAsOperator(ctx, slug, fmt.Sprintf("%s-%d@bench.test", slug, m), app.MemberRoleAdmin); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	seeded, err := SeedPairs(ctx, pool, o.Seats, agents)
	if err != nil {
		return nil, nil, err
	}
	for i, s := range seeded {
		r := rooms[i]
		r.id, r.tokens = s.ID, s.Tokens
		for _, p := range r.pages {
			if p.path == "" {
				p.path = "/rooms/" + strconv.FormatInt(r.id, 10) + "/events"
			}
		}
	}
	return rooms, emails, nil
}

// forEach runs do(0…n-1), parallel at a time, and returns the first error.
func forEach(ctx context.Context, n, parallel int, do func(i int) error) error {
	next := make(chan int)
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// serverState reads the server's memory (/proc) and its runtime's figures
// (/metrics).
func serverState(p *Process, base string) ServerState {
	var s ServerState
	if m, err := p.Memory(); err == nil {
		s.RSSKiB, s.HWMKiB = m.RSSKiB, m.HWMKiB
	}
	m := serverMetrics(base)
	s.Goroutines, s.HeapInuse, s.Sys = m["go_goroutines"], m["go_memstats_heap_inuse_bytes"], m["go_memstats_sys_bytes"]
	return s
}

// saveHeap saves the server's heap profile, of its live objects (the
// profile has the server collect first), to a temporary file and returns
// its path ("" when it could not).
func saveHeap(pprofAddr string) string {
	resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/heap?gc=1")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("taasky-live-heap-%d.pb.gz", time.Now().UnixNano()))
	f, err := os.Create(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return ""
	}
	return path
}

// Print writes the report.
func (r *LiveReport) Print(w io.Writer) {
	fmt.Fprintf(w, "\nTaasky live bench: %d pages over %d rooms, %d agents waiting (one per room), %d rooms in all, %d rounds of a move in every room\n",
		r.Pages, r.PageRooms, r.Waiters, r.Rooms, r.Rounds)
	fmt.Fprintf(w, "  pages opened in %s; streams reopened %d times (the server ends each after 30–45 s), %d failures\n", r.Opened.Round(time.Millisecond), r.Reopens, r.PageFails)
	fmt.Fprintf(w, "  moves:   %d (%.1f/s in the rounds), %d errors", r.Moves, r.MovesPerSec, r.MoveErrors)
	if r.FirstError != nil {
		fmt.Fprintf(w, " (first: %v)", r.FirstError)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  page heard the move, from its answer:    %s max=%s; missed %d, before the answer %d\n", r.Page, round(r.Page.Max), r.PageMissed, r.PageEarly)
	fmt.Fprintf(w, "    the rooms' own pages:                  %s max=%s\n", r.RoomPage, round(r.RoomPage.Max))
	fmt.Fprintf(w, "    the rooms lists (a member's /events):  %s max=%s\n", r.ListPage, round(r.ListPage.Max))
	fmt.Fprintf(w, "  waiter's answer, from the move's answer: %s max=%s; missed %d, before the answer %d (%d calls)\n", r.Waiter, round(r.Waiter.Max), r.WaiterMissed, r.WaiterEarly, r.WaitCalls)
	mib := func(kib int64) float64 { return float64(kib) / 1024 }
	for _, s := range []struct {
		name string
		st   ServerState
	}{{"idle", r.Idle}, {"pages open", r.WithPages}, {"and waiters", r.WithWaits}, {"after a GC", r.Collected}, {"at the end", r.Peak}} {
		if s.st.RSSKiB == 0 {
			continue
		}
		fmt.Fprintf(w, "  server, %-11s VmRSS %7.1f MiB, VmHWM %7.1f MiB, %6.0f goroutines, heap in use %6.1f MiB, runtime sys %6.1f MiB\n",
			s.name+":", mib(s.st.RSSKiB), mib(s.st.HWMKiB), s.st.Goroutines, s.st.HeapInuse/(1<<20), s.st.Sys/(1<<20))
	}
	if r.Pages > 0 {
		fmt.Fprintf(w, "  per page:   %.1f KiB RSS, %.2f goroutines, %.1f KiB heap\n", float64(r.WithPages.RSSKiB-r.Idle.RSSKiB)/float64(r.Pages),
			(r.WithPages.Goroutines-r.Idle.Goroutines)/float64(r.Pages), (r.WithPages.HeapInuse-r.Idle.HeapInuse)/1024/float64(r.Pages))
	}
	if r.Waiters > 0 {
		fmt.Fprintf(w, "  per waiter: %.1f KiB RSS, %.2f goroutines, %.1f KiB heap\n", float64(r.WithWaits.RSSKiB-r.WithPages.RSSKiB)/float64(r.Waiters),
			(r.WithWaits.Goroutines-r.WithPages.Goroutines)/float64(r.Waiters), (r.WithWaits.HeapInuse-r.WithPages.HeapInuse)/1024/float64(r.Waiters))
	}
	if r.HeapProfile != "" {
		fmt.Fprintf(w, "  heap profile with everything open: %s (go tool pprof -sample_index=inuse_space)\n", r.HeapProfile)
	}
}

// Err is the run's failure: moves refused, pages or waiters that never
// heard of a move, or a measure missing.
func (r *LiveReport) Err() error {
	var errs []error
	if r.MoveErrors > 0 {
		errs = append(errs, fmt.Errorf("%d moves failed; the first: %v", r.MoveErrors, r.FirstError))
	}
	if r.PageMissed > 0 || r.WaiterMissed > 0 {
		errs = append(errs, fmt.Errorf("%d page(s) and %d waiter(s) never heard of a move", r.PageMissed, r.WaiterMissed))
	}
	if want := r.Pages * r.Rounds; r.Page.N+r.PageMissed != want {
		errs = append(errs, fmt.Errorf("%d page measures, want %d", r.Page.N+r.PageMissed, want))
	}
	if want := r.Waiters * r.Rounds; r.Waiter.N+r.WaiterMissed != want {
		errs = append(errs, fmt.Errorf("%d waiter measures, want %d", r.Waiter.N+r.WaiterMissed, want))
	}
	if r.WithPages.RSSKiB == 0 || r.WithPages.Goroutines == 0 {
		errs = append(errs, errors.New("the server's memory and goroutines were not read"))
	}
	return errors.Join(errs...)
}
