package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/metricstest"
)

// waitFor polls cond every 20 ms, at most 10 s (less than MaxWait, 25 s:
// a wait that lasts to its end is still there when it gives up).
func waitFor(cond func() bool) bool {
	for range 500 {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// TestWaitingReadEndsWithItsClient: a read waiting for its room
// (wait_seconds 25) whose agent gives up, by cancelling its call (go-sdk's
// context: the connection closes) or by closing its connection, stops
// waiting then, not 25 s later: it no longer counts against the agent's
// waits, so that an agent that cancels and asks again is not refused for
// waits nobody reads. The connection a read was answered on still serves
// the next call.
func TestWaitingReadEndsWithItsClient(t *testing.T) {
	t.Parallel()
	const perAgent = 3
	e := setup(t, func(c *app.RoomsConfig) { c.WaitsPerAgent = perAgent })
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	ta := open["room_token"].(string)
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema})["room_token"]
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"day": "2026-12-24"}})
	read := map[string]any{"room_token": ta, "wait_seconds": 25} // a's turn is over: it waits

	// go-sdk: the call's context cancelled.
	ctx, cancel := context.WithCancel(e.ctx)
	called := make(chan error, 1)
	go func() {
		_, err := e.sessions["a"].CallTool(ctx, &mcp.CallToolParams{Name: "negotiation_read", Arguments: read})
		called <- err
	}()
	if !waitFor(func() bool { return e.rooms.Waiting() == 1 }) {
		t.Fatalf("the read does not wait: %d waiting", e.rooms.Waiting())
	}
	cancel()
	if err := <-called; err == nil {
		t.Fatal("a cancelled call answered")
	}
	if !waitFor(func() bool { return e.rooms.Waiting() == 0 }) {
		t.Fatalf("after go-sdk cancelled its call, %d reads still wait", e.rooms.Waiting())
	}

	// The TypeScript SDK: the call's AbortSignal (run as
	// TestTypeScriptClient is, when test/ts-client has its modules).
	if _, err := os.Stat(filepath.Join("..", "test", "ts-client", "node_modules", "@modelcontextprotocol", "sdk")); err == nil {
		cmd := exec.Command("node", "abort.mjs")
		cmd.Dir = filepath.Join("..", "test", "ts-client")
		cmd.Env = append(os.Environ(), "MCP_URL="+e.url+"/mcp/alpha", "KEY="+e.keys["a"], "ROOM_TOKEN="+ta)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		kill := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
		out := bufio.NewScanner(stdout)
		if !out.Scan() || out.Text() != "waiting" {
			t.Fatalf("abort.mjs: %q", out.Text())
		}
		if !waitFor(func() bool { return e.rooms.Waiting() == 1 }) {
			t.Fatalf("the TypeScript SDK's read does not wait: %d waiting", e.rooms.Waiting())
		}
		_, _ = stdin.Write([]byte("abort\n"))
		if !out.Scan() || out.Text() != "aborted" {
			t.Fatalf("abort.mjs: %q", out.Text())
		}
		if !waitFor(func() bool { return e.rooms.Waiting() == 0 }) {
			t.Fatalf("after the TypeScript SDK aborted its call, %d reads still wait", e.rooms.Waiting())
		}
		_ = cmd.Wait()
		kill.Stop()
	}

	// Raw HTTP: perAgent reads, each connection closed while it waits.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"negotiation_read","arguments":{"room_token":"` + ta + `","wait_seconds":25}}}`
	addr := strings.TrimPrefix(e.url, "http://")
	request := fmt.Sprintf("POST /mcp/alpha HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", addr, e.keys["a"], len(body), body)
	for i := range perAgent {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write([]byte(request)); err != nil {
			t.Fatal(err)
		}
		if !waitFor(func() bool { return e.rooms.Waiting() == 1 }) {
			t.Fatalf("read %d does not wait: %d waiting", i, e.rooms.Waiting())
		}
		conn.Close()
		if !waitFor(func() bool { return e.rooms.Waiting() == 0 }) {
			t.Fatalf("after read %d's connection closed, %d reads still wait", i, e.rooms.Waiting())
		}
	}

	// The agent waits again (not refused for the waits it left), and a
	// connection whose read was answered serves the next call.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(40 * time.Second))
	if _, err := conn.Write([]byte(request)); err != nil {
		t.Fatal(err)
	}
	if !waitFor(func() bool { return e.rooms.Waiting() == 1 }) {
		t.Fatalf("the read after the closed ones does not wait: %d waiting", e.rooms.Waiting())
	}
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": map[string]any{"day": "2026-12-25"}})
	br := bufio.NewReader(conn)
	for try := range 2 {
		if try == 1 { // a's turn now: answered at once
			if _, err := conn.Write([]byte(strings.Replace(request, `"wait_seconds":25`, `"wait_seconds":10`, 1))); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", try, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `2026-12-25`) {
			t.Fatalf("answer %d: %s %s %v", try, resp.Status, b, err)
		}
	}
}

// TestMoveWhoseClientWentAway: an agent sends a counter and closes its
// connection before the answer (at once, or a moment later), then sends
// the same counter again, as a client that lost its answer does. Each
// counter is played once: the retry is answered with its result, and the
// room's log holds one round per counter, whatever the first request's
// fate.
func TestMoveWhoseClientWentAway(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	tokens := map[string]string{"a": open["room_token"].(string)}
	tokens["b"] = e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": tokens["a"], "verdict": "offer", "subject": map[string]any{"day": "2026-12-01"}})
	addr := strings.TrimPrefix(e.url, "http://")
	slugs := map[string]string{"a": "alpha", "b": "beta"}
	const counters = 12
	for i := range counters {
		side := "b"
		if i%2 == 1 {
			side = "a"
		}
		e.clock.Add(int64(3 * time.Second)) // past the side's cool-down
		args := map[string]any{"room_token": tokens[side], "verdict": "counter", "subject": map[string]any{"day": fmt.Sprintf("2026-12-%02d", i+2)}}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "negotiation_propose", "arguments": args}})
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fprintf(conn, "POST /mcp/%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s", slugs[side], e.keys[side], len(body), body); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i%4) * time.Millisecond) // gone at once, or while the move is made
		conn.Close()
		out := e.must(t, side, "negotiation_propose", args)
		if room := out["room"].(map[string]any); room["round"] != float64(i+2) {
			t.Fatalf("counter %d, sent again: round %v, want %d", i, room["round"], i+2)
		}
		// The first request is answered too before the other side moves: one
		// the server reads only after that is a counter of its own, as the
		// same terms tabled again would be (nothing tells them apart).
		if !waitFor(func() bool { return proposeCalls(t, e) == float64(3+2*i) }) {
			t.Fatalf("counter %d: %v propose calls answered, want %d", i, proposeCalls(t, e), 3+2*i)
		}
	}
	v, err := e.rooms.ReadHistory(e.ctx, e.agents["a"], tokens["a"])
	if err != nil {
		t.Fatal(err)
	}
	if v.Round != counters+1 || len(v.Rounds) != counters+1 {
		t.Fatalf("the log: round %d, %d rounds; want %d", v.Round, len(v.Rounds), counters+1)
	}
	e.check(t)
}

// proposeCalls counts the negotiation_propose calls the server answered,
// whatever their outcome, the offer that opens the test's room included.
func proposeCalls(t *testing.T, e *env) float64 {
	m := metricstest.Scrape(t, e.url+"/metrics")
	var n float64
	for _, o := range []string{"ok", "refused", "internal_error", "not_now"} {
		v, _ := m.Value("taasky_mcp_calls_total", "tool", "negotiation_propose", "outcome", o)
		n += v
	}
	return n
}
