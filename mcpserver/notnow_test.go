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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// cutProxy is a TCP proxy to the test's PostgreSQL that the test cuts: the
// database going away for what connects through it, and for it alone.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

// cut stops accepting and closes every connection through the proxy.
func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// told is what a client handed its caller, the model, for one tool call:
// the tool result's texts, or the error instead of a result.
type told struct {
	IsError bool           `json:"isError"`
	Texts   []string       `json:"texts"`
	Meta    map[string]any `json:"meta"`
	Thrown  string         `json:"thrown"`
}

// tsAgent is the official TypeScript SDK's client (test/ts-client/notnow.mjs),
// connected; call makes its one tool call and says what it was told.
type tsAgent struct {
	stdin io.Writer
	out   *bufio.Scanner
	cmd   *exec.Cmd
}

func startTSAgent(t *testing.T, url, key string) *tsAgent {
	t.Helper()
	cmd := exec.Command("node", "notnow.mjs")
	cmd.Dir = filepath.Join("..", "test", "ts-client")
	cmd.Env = append(os.Environ(), "MCP_URL="+url, "KEY="+key)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	kill := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	t.Cleanup(func() { kill.Stop(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	a := &tsAgent{stdin: stdin, out: bufio.NewScanner(stdout), cmd: cmd}
	if !a.out.Scan() || a.out.Text() != `{"connected":true}` {
		t.Fatalf("the TypeScript client did not connect: %q", a.out.Text())
	}
	return a
}

func (a *tsAgent) call(t *testing.T) told {
	t.Helper()
	_, _ = a.stdin.Write([]byte("call\n"))
	if !a.out.Scan() {
		t.Fatal("the TypeScript client said nothing")
	}
	var got told
	if err := json.Unmarshal(a.out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, a.out.Text())
	}
	return got
}

// goCall is one tool call through go-sdk's client, as told to its caller.
func goCall(ctx context.Context, s *mcp.ClientSession) told {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "negotiation_list", Arguments: map[string]any{}})
	if err != nil {
		return told{Thrown: err.Error()}
	}
	got := told{IsError: res.IsError, Meta: res.Meta}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			got.Texts = append(got.Texts, tc.Text)
		}
	}
	return got
}

// TestToolCallsToldWhyAndWhen: a tool call Taasky does not take now (past
// the agent's rate limit; its key not checked because the database did
// not answer) reaches the model through go-sdk's client and the
// TypeScript SDK's as a tool error saying why and when to call again,
// with Retry-After kept. Before, it was a 429 or 503 with {"error": …},
// whose body go-sdk's client never reads: its caller was told "Too Many
// Requests" or "Service Unavailable" alone (the TypeScript client threw
// "Streamable HTTP error: Error POSTing to endpoint: {…}"). Requests that
// are not a tool call (tools/list here) keep the 429 and 503.
func TestToolCallsToldWhyAndWhen(t *testing.T) {
	t.Parallel()
	ts := true
	if _, err := os.Stat(filepath.Join("..", "test", "ts-client", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/ts-client has no node_modules: .ci/run must run npm ci there")
		}
		ts = false // go-sdk's client alone
	}
	e := setup(t)
	// The key checks of this server go through a proxy the test cuts.
	cc := e.pool.Config().Copy()
	proxy := newCutProxy(t, net.JoinHostPort(cc.ConnConfig.Host, strconv.Itoa(int(cc.ConnConfig.Port))))
	cc.ConnConfig.Host, cc.ConnConfig.Fallbacks = "127.0.0.1", nil
	cc.ConnConfig.Port = uint16(proxy.ln.Addr().(*net.TCPAddr).Port)
	viaProxy, err := pgxpool.NewWithConfig(e.ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(viaProxy.Close)
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	// Burst: each client's initialize and initialized, the TypeScript
	// one's GET for a stream, and the tools/list below; no refill.
	rl := RateLimit{Rate: 0.001, Burst: 6}
	New(e.rooms, "test").WithRateLimit(rl).Mount(web, app.NewAccounts(viaProxy))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	base := "http://" + ln.Addr().String()
	connect := func(side string) (*mcp.ClientSession, *tsAgent) {
		t.Helper()
		url := base + "/mcp/" + e.agents[side].AccountSlug
		s, err := mcp.NewClient(&mcp.Implementation{Name: "go-agent", Version: "1"}, nil).Connect(e.ctx,
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: recorder{key: e.keys[side]}, Timeout: 30 * time.Second},
				DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if !ts {
			return s, nil
		}
		return s, startTSAgent(t, url, e.keys[side])
	}
	type answer struct {
		status int
		retry  string
		body   string
		cors   string // what a page of another origin may read of it
	}
	post := func(side, body string) answer {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp/"+e.agents[side].AccountSlug, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+e.keys[side])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(b),
			resp.Header.Get("Access-Control-Allow-Origin") + " " + resp.Header.Get("Access-Control-Expose-Headers")}
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	const call = `{"jsonrpc":"2.0","id":"c-7","method":"tools/call","params":{"name":"negotiation_list","arguments":{}}}`
	// says checks what a client told its caller: the tool error msg, with
	// _meta {"retry_after": secs}.
	says := func(who string, got told, msg string, secs string) {
		t.Helper()
		if got.Thrown != "" || !got.IsError || len(got.Texts) != 1 || got.Texts[0] != msg ||
			fmt.Sprint(got.Meta["retry_after"]) != secs {
			t.Errorf("%s told its caller %+v; want the tool error %q and retry_after %s", who, got, msg, secs)
		}
	}

	// Past the rate limit.
	goA, tsA := connect("a")
	var limited answer
	for range 2 * rl.Burst {
		if limited = post("a", list); limited.status != http.StatusOK {
			break
		}
	}
	rule := "rate limit: at most 0.001 calls a second per agent, all its keys and tokens together (bursts of 6); retry after "
	// A page of any origin reads it, and its Retry-After (review25a).
	readable := func(a answer) bool { return strings.HasPrefix(a.cors, "* ") && strings.Contains(a.cors, "Retry-After") }
	if limited.status != http.StatusTooManyRequests || limited.retry == "" || !strings.Contains(limited.body, `{"error":"`+rule) || !readable(limited) {
		t.Fatalf("tools/list past the rate limit: %+v; want 429 with Retry-After and the rule", limited)
	}
	// The seconds left count down while the test runs (a loaded machine
	// takes seconds between two calls): each later answer says as many,
	// or up to a minute fewer.
	first, err := strconv.Atoi(limited.retry)
	if err != nil {
		t.Fatalf("Retry-After %q", limited.retry)
	}
	counted := func(secs string) bool {
		n, err := strconv.Atoi(secs)
		return err == nil && n <= first && n > first-60
	}
	if a := post("a", call); a.status != http.StatusOK || !counted(a.retry) ||
		!strings.Contains(a.body, `"id":"c-7"`) || !strings.Contains(a.body, `"isError":true`) || !strings.Contains(a.body, rule+a.retry+" s") {
		t.Errorf("a tool call past the rate limit: %+v; want 200, Retry-After about %d and a tool error with the rule", a, first)
	}
	// saysRule is says for the rule, with the seconds it says.
	saysRule := func(who string, got told) {
		t.Helper()
		secs := fmt.Sprint(got.Meta["retry_after"])
		if !counted(secs) {
			t.Errorf("%s told its caller %+v; want retry_after about %d", who, got, first)
		}
		says(who, got, rule+secs+" s", secs)
	}
	saysRule("go-sdk's client past the rate limit", goCall(e.ctx, goA))
	if tsA != nil {
		saysRule("the TypeScript client past the rate limit", tsA.call(t))
	}

	// The database away while keys are checked.
	goB, tsB := connect("b")
	proxy.cut()
	if a := post("b", list); a.status != http.StatusServiceUnavailable || a.retry != "5" || !strings.Contains(a.body, "cannot check agent keys") || !readable(a) {
		t.Errorf("tools/list with the database away: %+v; want 503 with Retry-After 5", a)
	}
	if a := post("b", call); a.status != http.StatusOK || a.retry != "5" || !strings.Contains(a.body, `"isError":true`) {
		t.Errorf("a tool call with the database away: %+v; want 200, Retry-After 5 and a tool error", a)
	}
	says("go-sdk's client with the database away", goCall(e.ctx, goB), app.RetryMessage, "5")
	if tsB != nil {
		says("the TypeScript client with the database away", tsB.call(t), app.RetryMessage, "5")
	}
}
