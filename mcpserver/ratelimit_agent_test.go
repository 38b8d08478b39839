package mcpserver

import (
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// TestRateLimitPerAgent: every key of an agent draws on one bucket. With
// a bucket per key, issuing another key (or getting another OAuth access
// token) gave an agent another full burst and rate: the limit was as many
// times the rate as it had keys. Other agents keep their own.
func TestRateLimitPerAgent(t *testing.T) {
	t.Parallel()
	e := setup(t)
	second, err := e.accounts.IssueAgentKey(e.ctx, "alpha", e.agents["a"].ID)
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	New(e.rooms, "test").WithRateLimit(RateLimit{Rate: 0.001, Burst: 3}).Mount(web, e.accounts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	post := func(slug, key string) int {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/mcp/"+slug, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var got []int
	for _, key := range []string{e.keys["a"], second.Key, e.keys["a"], second.Key, e.keys["a"]} {
		got = append(got, post("alpha", key))
	}
	if want := []int{200, 200, 200, 429, 429}; !slices.Equal(got, want) {
		t.Errorf("two keys of one agent, burst 3: %v, want %v", got, want)
	}
	if st := post("beta", e.keys["b"]); st != 200 {
		t.Errorf("another agent: %d", st)
	}
}
