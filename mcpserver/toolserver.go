package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// Tool is a tool of the caller's, for NewToolServer.
type Tool struct {
	Def *mcp.Tool
	// Handle gets the request's agent and the call's raw arguments (read
	// them with DecodeArgs). Its result becomes the structured content (a
	// json.RawMessage as it is, anything else marshalled); its error, the
	// tool error's one line (app.ErrorMessageOf).
	Handle func(ctx context.Context, agent app.Agent, args json.RawMessage) (any, error)
}

// NewToolServer builds a Server that serves tools in place of the
// negotiation tools, exactly as New serves those: the same go-sdk options
// and the same wrapping of results and refusals. taasky bench builds its
// transport floor (an echo) with it. It is never mounted by the service.
func NewToolServer(impl *mcp.Implementation, tools []Tool) *Server {
	own := make([]tool, len(tools))
	for i, t := range tools {
		own[i] = tool{def: t.Def, handle: t.Handle}
	}
	return (&Server{}).serve(impl, nil, own)
}

// DecodeArgs reads a call's arguments strictly into a struct, as the
// negotiation tools do: every unknown argument and wrong type, each named,
// in one error (app.ErrInvalid).
func DecodeArgs(raw json.RawMessage, into any) error { return decodeArgs(raw, into).err() }

// HandlerAs serves s over Streamable HTTP with every request made as agent,
// without a key: for a server on a listener of its own that serves no one
// else (the bench's echo). The service's agents go through Mount, which
// checks their keys.
func (s *Server) HandlerAs(agent app.Agent) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.handler.ServeHTTP(w, r.WithContext(WithAgent(r.Context(), agent)))
	})
}
