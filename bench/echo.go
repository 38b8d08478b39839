package bench

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/mcpserver"
)

// EchoHandler is the MCP transport's floor: tools served exactly as the
// negotiation tools are (mcpserver.NewToolServer: the same go-sdk options,
// the same argument reading and result building) but doing no work. echo
// returns its arguments; echo_view returns a room view of the size
// negotiation_read returns, so that the bench can tell a read's cost of
// answering a few KB from its cost of reading the room. With commit,
// echo_commit also runs it before returning its arguments: a durable call
// with nothing of Taasky's in it (DurableCall). Every request is served as
// an agent-less call: the handler belongs on the bench's own listener.
func EchoHandler(commit func(context.Context) error) http.Handler {
	token := json.RawMessage(`{"type":"object","properties":{"room_token":{"type":"string"}}}`)
	// answer reads the arguments as the negotiation tools do, does work
	// (nil: none) and answers with out (nil: the arguments).
	answer := func(work func(context.Context) error, out json.RawMessage) func(context.Context, app.Agent, json.RawMessage) (any, error) {
		return func(ctx context.Context, _ app.Agent, raw json.RawMessage) (any, error) {
			var in echoArgs
			if err := mcpserver.DecodeArgs(raw, &in); err != nil {
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
	tools := []mcpserver.Tool{
		{Def: &mcp.Tool{Name: "echo", Description: "Returns its arguments.", InputSchema: token, OutputSchema: token},
			Handle: answer(nil, nil)},
		{Def: &mcp.Tool{Name: "echo_view", Description: "Returns a room view of a read's size.", InputSchema: token,
			OutputSchema: json.RawMessage(`{"type":"object"}`)}, Handle: answer(nil, sampleView)},
	}
	if commit != nil {
		tools = append(tools, mcpserver.Tool{Def: &mcp.Tool{Name: "echo_commit", Description: "Commits a transaction, then returns its arguments.",
			InputSchema: token, OutputSchema: token}, Handle: answer(commit, nil)})
	}
	s := mcpserver.NewToolServer(&mcp.Implementation{Name: "taasky-echo", Version: "bench"}, tools)
	return s.HandlerAs(app.Agent{})
}

// echoArgs are the echo tools' arguments, a room token as the negotiation
// tools take it.
type echoArgs struct {
	RoomToken string `json:"room_token"`
}

// sampleView is what negotiation_read returned for an agreed room of the
// bench's default mix (an offer, two counters, both approvals): echo_view's
// answer.
//
//go:embed testdata/sample_view.json
var sampleView []byte
