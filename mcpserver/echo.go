package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// NewEcho is the MCP transport's floor for `taasky bench`: one tool, echo,
// served exactly as the negotiation tools are (same go-sdk options, same
// argument reading and result building) but doing no work. It is never
// mounted by the service.
func NewEcho() *Server {
	s := &Server{}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "taasky-echo", Version: "bench"}, nil)
	t := tool{
		def: &mcp.Tool{Name: "echo", Description: "Returns its arguments.",
			InputSchema:  rawSchema(`{"type": "object", "properties": {"room_token": {"type": "string"}}}`),
			OutputSchema: rawSchema(`{"type": "object", "properties": {"room_token": {"type": "string"}}}`)},
		handle: func(_ context.Context, _ app.Agent, raw json.RawMessage) (any, error) {
			var in tokenArgs
			if err := decodeArgs(raw, &in); err != nil {
				return nil, err
			}
			return in, nil
		},
	}
	s.mcp.AddTool(t.def, s.wrap(t))
	s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: 1 << 20})
	return s
}

// ServeEcho serves the echo server's handler to an agent-less request (the
// bench's own listener only).
func (s *Server) ServeEcho(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r.WithContext(WithAgent(r.Context(), app.Agent{})))
}
