package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// countingAuth is the real key check, counting how often it is asked.
type countingAuth struct {
	*app.Accounts
	asked atomic.Int64
}

func (a *countingAuth) AuthenticateAgentKey(ctx context.Context, key string) (app.Agent, error) {
	a.asked.Add(1)
	return a.Accounts.AuthenticateAgentKey(ctx, key)
}

// TestFailedAuthenticationsPerAddress: unknown or revoked bearers from one
// client address (behind a trusted proxy, X-Forwarded-For's; an IPv6 one
// as its /64) are looked up at most Burst times, then answered 429 with
// Retry-After and the rule, without a lookup. Before the limit each of
// them cost a database lookup, without end. A valid key from another
// address, and one already known from the address itself, are not slowed.
func TestFailedAuthenticationsPerAddress(t *testing.T) {
	t.Parallel()
	e := setup(t)
	auth := &countingAuth{Accounts: e.accounts}
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	New(e.rooms, "test").WithAuthFailureLimit(3, []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}).Mount(web, auth)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	unknown := "tsk_" + strings.Repeat("A", 43) // well formed: looked up
	type answer struct {
		status     int
		retryAfter string
		error      string
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	send := func(from, key, body string) answer {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/mcp/alpha", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var answered struct {
			Error  string
			Result struct {
				IsError bool `json:"isError"`
				Content []struct{ Text string }
			}
		}
		_ = json.NewDecoder(resp.Body).Decode(&answered)
		if answered.Result.IsError && len(answered.Result.Content) == 1 {
			answered.Error = "tool error: " + answered.Result.Content[0].Text
		}
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), answered.Error}
	}
	post := func(from, key string) answer { t.Helper(); return send(from, key, list) }
	// The agent's second key authenticates once from elsewhere: known.
	known, err := e.accounts.IssueAgentKey(e.ctx, "alpha", e.agents["a"].ID)
	if err != nil {
		t.Fatal(err)
	}
	if a := post("192.0.2.50", known.Key); a.status != 200 {
		t.Fatalf("a valid key: %+v", a)
	}

	for i := range 3 {
		if a := post("192.0.2.1", unknown); a.status != 401 {
			t.Fatalf("failure %d of the burst: %+v", i+1, a)
		}
	}
	before := auth.asked.Load()
	a := post("192.0.2.1", unknown)
	if a.status != 429 || a.retryAfter != "20" ||
		a.error != "too many failed authentications from this address: at most 3 a minute with an unknown, revoked or malformed bearer; retry after 20 s" {
		t.Errorf("past the burst: %+v", a)
	}
	// A tool call is told the rule as a tool error, which go-sdk's client
	// shows its caller (it reads no body of a 429), with Retry-After.
	// (The seconds count down while the test runs: 20, or fewer on a
	// loaded machine, the same in the header and the words.)
	if a := send("192.0.2.1", unknown, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`); a.status != 200 ||
		(a.retryAfter != "20" && a.retryAfter != "19" && a.retryAfter != "18") ||
		a.error != "tool error: too many failed authentications from this address: at most 3 a minute with an unknown, revoked or malformed bearer; retry after "+a.retryAfter+" s" {
		t.Errorf("a tool call past the burst: %+v", a)
	}
	if n := auth.asked.Load() - before; n != 0 {
		t.Errorf("the refused bearer was looked up %d times", n)
	}
	if a := post("192.0.2.1", e.keys["a"]); a.status != 429 {
		t.Errorf("a valid key this process has not seen, from the address refused: %+v", a)
	}
	if a := post("192.0.2.1", known.Key); a.status != 200 {
		t.Errorf("a known valid key from the address refused: %+v", a)
	}
	if a := post("192.0.2.2", e.keys["a"]); a.status != 200 {
		t.Errorf("a valid key from another address: %+v", a)
	}
	if a := post("192.0.2.2", unknown); a.status != 401 {
		t.Errorf("another address's first failure: %+v", a)
	}

	// An IPv6 client counts as its /64.
	for i := range 3 {
		if a := post("2001:db8:1:2::"+string(rune('1'+i)), unknown); a.status != 401 {
			t.Fatalf("IPv6 failure %d: %+v", i+1, a)
		}
	}
	if a := post("2001:db8:1:2::99", unknown); a.status != 429 {
		t.Errorf("another address of the /64: %+v", a)
	}
	if a := post("2001:db8:1:3::1", unknown); a.status != 401 {
		t.Errorf("another /64: %+v", a)
	}

	// A key revoked after it was known is a failure like any other.
	keys, err := e.accounts.ListAgentKeys(e.ctx, "alpha", e.agents["a"].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Prefix == known.Prefix {
			if err := e.accounts.RevokeAgentKey(e.ctx, "alpha", k.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range 3 {
		if a := post("198.51.100.9", known.Key); a.status != 401 {
			t.Fatalf("revoked key, failure %d: %+v", i+1, a)
		}
	}
	if a := post("198.51.100.9", known.Key); a.status != 429 {
		t.Errorf("a revoked key past the burst: %+v", a)
	}
}
