package mcpserver

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// oneAgent authenticates every key as one agent of account alpha.
type oneAgent struct{}

func (oneAgent) AuthenticateAgentKey(context.Context, string) (app.Agent, error) {
	return app.Agent{ID: 7, AccountID: 1, AccountSlug: "alpha", OwnerUserID: 1, Name: "agent"}, nil
}

// largeHistory is a Service whose rooms' whole history is answerBytes
// long (a long log of terms of the largest size); the rest of Service is
// not called.
type largeHistory struct {
	Service
	answerBytes int
}

func (l largeHistory) ReadHistory(context.Context, app.Agent, string) (*app.View, error) {
	return &app.View{RoomID: 1, Title: strings.Repeat("x", l.answerBytes)}, nil
}

// TestLargeAnswersCountAgainstTheRateLimit: a call's answer counts one
// call more per 100 KB against the agent's rate limit, after the fact. A
// read of a room's whole history asks in a few bytes and answers every
// round's terms (tens of megabytes in a long log of the largest terms):
// counted as one call, an agent could have the process read and encode
// the whole log ten times a second, for ever. Ordinary answers count as
// before.
func TestLargeAnswersCountAgainstTheRateLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name        string
		answerBytes int
		want        []int // the statuses of: the read, then tools/list calls
	}{
		{"an ordinary answer", 2_000, []int{200, 200, 200, 200}},
		// 1.2 MB answered (the title in the view and in its text copy,
		// each twice): 12 calls more, the burst of 4 spent and 9 owed.
		{"a history of 300 KB", 300_000, []int{200, 429, 429, 429}},
	} {
		t.Run(c.name, func(t *testing.T) {
			web := fiber.New(fiber.Config{DisableStartupMessage: true, BodyLimit: 4 << 20})
			New(largeHistory{answerBytes: c.answerBytes}, "test").WithRateLimit(RateLimit{Rate: 0.01, Burst: 4}).Mount(web, oneAgent{})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go func() { _ = web.Listener(ln) }()
			t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
			post := func(body string) (int, int) {
				req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+"/mcp/alpha", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer tsk_any")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, len(b)
			}
			status, size := post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_read","arguments":{"room_token":"rt_1","history":true}}}`)
			got := []int{status}
			for range 3 {
				s, _ := post(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
				got = append(got, s)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("a read answering %d bytes, then tools/list: %v, want %v", size, got, c.want)
				}
			}
		})
	}
}
