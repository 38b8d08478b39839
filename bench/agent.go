package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Agent is one MCP client session, timing every call.
type Agent struct {
	session *mcp.ClientSession
	lat     *Latencies
	clients gate
}

// gate holds one slot per client: a call waits for a free slot, so that no
// more calls are in flight than the bench has clients.
type gate chan struct{}

func (g gate) enter() {
	if g != nil {
		g <- struct{}{}
	}
}

func (g gate) leave() {
	if g != nil {
		<-g
	}
}

type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// Connect opens a go-sdk client session to an MCP URL with an agent key.
func Connect(ctx context.Context, url, key string, transport http.RoundTripper, lat *Latencies, clients gate) (*Agent, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "taasky-bench", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: bearer{key, transport}, Timeout: 60 * time.Second}}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", url, err)
	}
	return &Agent{session: s, lat: lat, clients: clients}, nil
}

// Close ends the session.
func (a *Agent) Close() { _ = a.session.Close() }

// Call calls a tool, records its latency under the tool's name, and decodes
// its structured result into out (when not nil).
func (a *Agent) Call(ctx context.Context, tool string, args any, out any) error {
	return a.CallWith(ctx, a.lat, tool, args, out)
}

// CallWith is Call with the latency recorded in lat.
func (a *Agent) CallWith(ctx context.Context, lat *Latencies, tool string, args any, out any) error {
	a.clients.enter()
	start := time.Now()
	res, err := a.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	lat.Add(tool, time.Since(start))
	a.clients.leave()
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return fmt.Errorf("%s refused: %s", tool, res.Content[0].(*mcp.TextContent).Text)
	}
	if out == nil {
		return nil
	}
	// The text is the structured result as JSON (mcpserver): decoding it
	// once costs the shared machine less than marshalling go-sdk's map of
	// it again to decode that. A text that is not the result falls back.
	if len(res.Content) == 1 {
		if text, ok := res.Content[0].(*mcp.TextContent); ok && json.Unmarshal([]byte(text.Text), out) == nil {
			return nil
		}
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		return fmt.Errorf("%s: decode the result: %w", tool, err)
	}
	return nil
}
