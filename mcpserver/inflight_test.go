package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestAccountCallsInProgressAreCapped: tenants share a process's pool of
// database connections, and the rate limit is per agent, so one account's
// agents (a buggy one hammering a room whose row is busy, or 100 agents
// each within its rate) held every connection, and another tenant's read
// waited for one (on the running binary: another tenant's p99 from 19 ms
// to 340 ms under one account's 100 agents). Here alpha's calls wait on
// a room row the test holds locked, each holding a connection of a pool
// of 6: held to 2 at once, alpha's further calls are answered at once
// with the rule (a tool error) and Retry-After, and beta's read is answered while
// alpha's two still wait. A read waiting for its room (wait_seconds) holds
// no connection and stops counting as it waits, so an account's waits do
// not use up its calls.
func TestAccountCallsInProgressAreCapped(t *testing.T) {
	t.Parallel()
	const poolSize, perAccount, sent = 6, 2, 8
	e := setup(t, func(c *app.RoomsConfig) {
		pc := c.Pool.Config().Copy()
		pc.MaxConns = poolSize
		small, err := pgxpool.NewWithConfig(context.Background(), pc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(small.Close)
		c.Pool = small
	})
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	ta := open["room_token"].(string)
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"day": "2026-12-10"}})
	// A second room of alpha's, where its agent waits for beta's move.
	open2 := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	ta2 := open2["room_token"].(string)
	tb2 := e.must(t, "b", "negotiation_join", map[string]any{"invite": open2["invite_code"], "subject_schema": schema})["room_token"].(string)
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta2, "verdict": "offer", "subject": map[string]any{"day": "2026-12-11"}})

	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	New(e.rooms, "test").WithAccountConcurrency(perAccount).Mount(web, e.accounts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	type answer struct {
		status     int
		retryAfter string
		body       string
	}
	client := &http.Client{Timeout: 60 * time.Second}
	post := func(ctx context.Context, side, tool string, args any) answer {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args}})
		req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+ln.Addr().String()+"/mcp/"+e.agents[side].AccountSlug, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+e.keys[side])
		resp, err := client.Do(req)
		if err != nil {
			return answer{body: err.Error()}
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b)}
	}

	// Waits hold no call: alpha's agent waits in its second room, and its
	// two calls at once are still there to be taken.
	waited := make(chan answer, 1)
	go func() {
		waited <- post(e.ctx, "a", "negotiation_read", map[string]any{"room_token": ta2, "wait_seconds": 25})
	}()
	for i := 0; e.rooms.Waiting() < 1; i++ {
		if i == 3000 {
			t.Fatal("alpha's read never waited")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The test holds room 1's row, as a long transaction would.
	lock, err := pgx.Connect(e.ctx, e.pool.Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Close(context.Background()) })
	tx, err := lock.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(e.ctx, `SELECT 1 FROM rooms FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	answers := make(chan answer, sent)
	for i := range sent {
		go func() {
			answers <- post(e.ctx, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "counter",
				"subject": map[string]any{"day": "2026-12-" + strconv.Itoa(12+i)}})
		}()
	}
	for i := 0; ; i++ {
		n, err := pgtest.LockWaits(e.ctx, e.pool)
		if err != nil {
			t.Fatal(err)
		}
		if n >= perAccount {
			break
		}
		if i == 3000 {
			t.Fatalf("%d of alpha's calls wait on the room's lock", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// alpha's calls past its two are refused at once, before any work.
	const rule = "too many calls at once: at most 2 calls of one account's agents are answered at the same time (a call counts as one per 512 KB of its request), and this account's calls in progress (or a larger one waiting for room) leave none for this one; retry after 1 s"
	for range sent - perAccount {
		select {
		case a := <-answers:
			// A tool call: answered as a tool error saying the rule, so that
			// go-sdk's client shows it (it reads no body of a 429), with
			// Retry-After kept (notNow).
			if a.status != http.StatusOK || a.retryAfter != "1" || !strings.Contains(a.body, `"isError":true`) || !strings.Contains(a.body, rule) {
				t.Fatalf("alpha's call past its share: %d Retry-After %q %s", a.status, a.retryAfter, a.body)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("alpha's calls past its share were not refused: they wait for the pool beside the first %d", perAccount)
		}
	}
	// beta's read is answered while alpha's two still wait on the lock.
	rctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	if a := post(rctx, "b", "negotiation_read", map[string]any{"room_token": tb}); a.status != http.StatusOK || strings.Contains(a.body, `"isError":true`) {
		t.Fatalf("beta's read while alpha holds its calls: %d %s", a.status, a.body)
	}
	if n, _ := pgtest.LockWaits(e.ctx, e.pool); n != perAccount {
		t.Fatalf("%d of alpha's calls wait on the lock, want %d", n, perAccount)
	}
	if err := tx.Rollback(e.ctx); err != nil {
		t.Fatal(err)
	}
	for range perAccount {
		if a := <-answers; a.status != http.StatusOK {
			t.Errorf("alpha's call once the lock is gone: %d %s", a.status, a.body)
		}
	}
	// The wait ends with beta's move, answered as any read.
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb2, "verdict": "counter", "subject": map[string]any{"day": "2026-12-20"}})
	if a := <-waited; a.status != http.StatusOK || !strings.Contains(a.body, "2026-12-20") {
		t.Errorf("alpha's waiting read: %d %s", a.status, a.body)
	}
}

// TestLargeCallsCountByTheirSize: a call counts as one per MaxBody/max
// bytes of its request, so that an account's calls with terms of the
// largest size (each costs the process what about ten ordinary calls
// cost) cannot hold its whole share of calls in progress at once: one
// account countering with the largest terms in 10 rooms at once slowed
// another tenant's moves from 6 ms to 500 ms (p50). Ordinary calls count
// as one, as before, and another account is never held back.
func TestLargeCallsCountByTheirSize(t *testing.T) {
	t.Parallel()
	f := newInFlight(10)
	for size, want := range map[int]int{0: 1, 2_000: 1, MaxBody / 10: 1, MaxBody/10 + 1: 2, 700_000: 7, MaxBody: 10, 5 * MaxBody: 10} {
		if got := f.callWeight(size); got != want {
			t.Errorf("a call of %d bytes counts as %d, want %d", size, got, want)
		}
	}
	big, ok := f.enter(1, MaxBody)
	if !ok {
		t.Fatal("a call of the largest size alone was refused")
	}
	if _, ok := f.enter(1, 200); ok {
		t.Fatal("an account's call was let in beside its call of the largest size: that one counts as all its calls")
	}
	other, ok := f.enter(2, MaxBody)
	if !ok {
		t.Fatal("another account's call was refused")
	}
	other()
	big()
	var leaves []func()
	for i := range 10 {
		leave, ok := f.enter(1, 2_000)
		if !ok {
			t.Fatalf("ordinary call %d refused", i+1)
		}
		leaves = append(leaves, leave)
	}
	if _, ok := f.enter(1, 2_000); ok {
		t.Fatal("an 11th ordinary call let in")
	}
	leaves[0]()
	leaves[0]() // leave twice: counted once
	if _, ok := f.enter(1, 300_000); ok {
		t.Fatal("a call of 3 calls' size let in where 1 was free")
	}
	// The refused call holds its room a moment (TestLargeCallIsNotStarved);
	// then an ordinary call takes the one free.
	f.now = func() time.Time { return time.Now().Add(holdFor) }
	if _, ok := f.enter(1, 2_000); !ok {
		t.Fatal("an ordinary call refused where 1 was free")
	}
}

// TestLargeCallIsNotStarved: a call of the largest size, refused while the
// account has calls in progress, gets in when sent again although the
// account's agents keep ordinary calls in progress all along (each new
// one in before the last one out): its refusal holds its room, lighter
// calls are let in only with that room left, and those in progress drain.
// It held nothing for ever: once its hold lapses, ordinary calls go in as
// before. The account's calls never count past max.
func TestLargeCallIsNotStarved(t *testing.T) {
	t.Parallel()
	f := newInFlight(10)
	now := time.Unix(1_000_000, 0)
	f.now = func() time.Time { return now }
	counted := func() {
		t.Helper()
		if n := f.n[1]; n > f.max || n < 0 {
			t.Fatalf("the account counts %d calls in progress, the most being %d", n, f.max)
		}
	}
	small, ok := f.enter(1, 2_000)
	if !ok {
		t.Fatal("an ordinary call refused")
	}
	if _, ok := f.enter(1, MaxBody); ok {
		t.Fatal("a call of the largest size let in beside another call")
	}
	in := false
	for i := 0; i < 50 && !in; i++ {
		now = now.Add(100 * time.Millisecond)
		if next, ok := f.enter(1, 2_000); ok { // the next ordinary call, before the last one leaves
			small()
			small = next
		} else {
			small()
			small = func() {}
		}
		counted()
		if i%10 == 9 { // sent again after its Retry-After
			var big func()
			if big, in = f.enter(1, MaxBody); in {
				counted()
				big()
			}
		}
	}
	if !in {
		t.Fatal("a call of the largest size refused for 5 s while the account's ordinary calls went on")
	}
	small()
	// A refused large call that never comes back holds nothing for long.
	var leaves []func()
	for range 6 {
		leave, ok := f.enter(1, 2_000)
		if !ok {
			t.Fatal("an ordinary call refused with room for it")
		}
		leaves = append(leaves, leave)
	}
	if _, ok := f.enter(1, 500_000); ok {
		t.Fatal("a call of 5 calls' size let in beside 6 calls of the account's")
	}
	if _, ok := f.enter(1, 2_000); ok {
		t.Fatal("an ordinary call let in while a refused call of 5 held its room (6 + 1 + 5 of 10)")
	}
	if _, ok := f.enter(2, MaxBody); !ok {
		t.Fatal("another account's call held back by this account's")
	}
	now = now.Add(holdFor)
	for i := range 4 {
		if _, ok := f.enter(1, 2_000); !ok {
			t.Fatalf("ordinary call %d refused after the large call's hold lapsed", i+7)
		}
		counted()
	}
	for _, leave := range leaves {
		leave()
	}
}

// TestTooManyAtOnceOfOne: MCP_ACCOUNT_CONCURRENCY=1 says "at most 1 call
// ... is answered", not "at most 1 calls ... are answered".
func TestTooManyAtOnceOfOne(t *testing.T) {
	t.Parallel()
	web := fiber.New()
	limit := 1
	web.Get("/", func(c *fiber.Ctx) error { return tooManyAtOnce(c, limit) })
	for n, want := range map[int]string{
		1: "too many calls at once: at most 1 call of one account's agents is answered at the same time (a call counts as one per 1024 KB of its request)",
		2: "too many calls at once: at most 2 calls of one account's agents are answered at the same time (a call counts as one per 512 KB of its request)",
	} {
		limit = n
		resp, err := web.Test(httptest.NewRequest(http.MethodGet, "/", nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), want) {
			t.Errorf("past a concurrency of %d: %d %s, want it to say %q", n, resp.StatusCode, body, want)
		}
	}
}
