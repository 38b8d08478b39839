package main

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startDevAgents starts `taasky dev` with e and reads the keys of the demo
// accounts' agents it prints: demo-a's, then demo-b's.
func startDevAgents(t *testing.T, e env) (*process, [2]string) {
	t.Helper()
	p := start(t, e, "dev")
	out := p.waitStdout(t, "Stop with Ctrl-C.")
	keys := regexp.MustCompile(`tsk_[A-Za-z0-9_-]{43}`).FindAllString(out, -1)
	if len(keys) != 2 {
		t.Fatalf("agent keys printed: %q\n%s", keys, out)
	}
	return p, [2]string{keys[0], keys[1]}
}

// agentSession is a go-sdk MCP client connected to endpoint through rt
// (bearer(key) for an agent key), closed when the test ends.
func agentSession(t *testing.T, endpoint string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	s, err := mcp.NewClient(&mcp.Implementation{Name: t.Name(), Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt, Timeout: 30 * time.Second},
			DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// bearer adds an agent key to every request.
type bearer string

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(req)
}
