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
// from its cost of reading the room. With commit, echo_commit also runs
// it before returning its arguments: a durable call with nothing of
// Taasky's in it (bench.DurableCall). It is never mounted by the service.
func NewEcho(commit func(context.Context) error) *Server {
	s := &Server{}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "taasky-echo", Version: "bench"}, nil)
	token := rawSchema(`{"type": "object", "properties": {"room_token": {"type": "string"}}}`)
	// answer reads the arguments as the negotiation tools do, does work
	// (nil: none) and answers with out (nil: the arguments).
	answer := func(work func(context.Context) error, out json.RawMessage) func(context.Context, app.Agent, json.RawMessage) (any, error) {
		return func(ctx context.Context, _ app.Agent, raw json.RawMessage) (any, error) {
			var in tokenArgs
			if err := decodeArgs(raw, &in); err != nil {
				return nil, err
			}
			if work != nil {
				if err := work(ctx); err != nil {
					return nil, err
				}
			}
			if out != nil {
				return out, nil
			}
			return in, nil
		}
	}
	tools := []tool{
		{def: &mcp.Tool{Name: "echo", Description: "Returns its arguments.", InputSchema: token, OutputSchema: token},
			handle: answer(nil, nil)},
		{def: &mcp.Tool{Name: "echo_view", Description: "Returns a room view of a read's size.", InputSchema: token,
			OutputSchema: rawSchema(`{"type": "object"}`)}, handle: answer(nil, sampleView)},
	}
	if commit != nil {
		tools = append(tools, tool{def: &mcp.Tool{Name: "echo_commit", Description: "Commits a transaction, then returns its arguments.",
			InputSchema: token, OutputSchema: token}, handle: answer(commit, nil)})
	}
	for _, t := range tools {
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
