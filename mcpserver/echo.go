package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// NewEcho is the MCP transport's floor for `taasky bench`: tools served
// exactly as the negotiation tools are (same go-sdk options, same argument
// reading and result building) but doing no work. echo returns its
// arguments; echo_view returns a room view of the size negotiation_read
// returns, so that the bench can tell a read's cost of answering a few KB
// from its cost of reading the room. It is never mounted by the service.
func NewEcho() *Server {
	s := &Server{}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "taasky-echo", Version: "bench"}, nil)
	token := rawSchema(`{"type": "object", "properties": {"room_token": {"type": "string"}}}`)
	for _, t := range []tool{{
		def: &mcp.Tool{Name: "echo", Description: "Returns its arguments.", InputSchema: token, OutputSchema: token},
		handle: func(_ context.Context, _ app.Agent, raw json.RawMessage) (any, error) {
			var in tokenArgs
			if err := decodeArgs(raw, &in); err != nil {
				return nil, err
			}
			return in, nil
		},
	}, {
		def: &mcp.Tool{Name: "echo_view", Description: "Returns a room view of a read's size.", InputSchema: token,
			OutputSchema: rawSchema(`{"type": "object"}`)},
		handle: func(_ context.Context, _ app.Agent, raw json.RawMessage) (any, error) {
			var in tokenArgs
			if err := decodeArgs(raw, &in); err != nil {
				return nil, err
			}
			return json.RawMessage(sampleView), nil
		},
	}} {
		s.mcp.AddTool(t.def, s.wrap(t))
	}
	s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: 1 << 20})
	return s
}

// sampleView is what negotiation_read returned for an agreed room of the
// bench's default mix (an offer, two counters, both approvals).
//
//go:embed testdata/sample_view.json
var sampleView []byte

// SampleView is echo_view's answer.
func SampleView() []byte { return sampleView }

// ServeEcho serves the echo server's handler to an agent-less request (the
// bench's own listener only).
func (s *Server) ServeEcho(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r.WithContext(WithAgent(r.Context(), app.Agent{})))
}
