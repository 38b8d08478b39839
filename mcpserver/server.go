package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/refusals"
	"github.com/taasky/taasky/negotiation"
)

// Service is the negotiation service as the tools use it (app.Rooms).
type Service interface {
	Open(ctx context.Context, agent app.Agent, in app.OpenInput) (*app.OpenResult, error)
	Join(ctx context.Context, agent app.Agent, in app.JoinInput) (*app.JoinResult, error)
	ReadWait(ctx context.Context, agent app.Agent, roomToken string, wait time.Duration) (*app.View, error)
	ReadHistory(ctx context.Context, agent app.Agent, roomToken string) (*app.View, error)
	List(ctx context.Context, agent app.Agent, tokens []string, cursor string) ([]app.Summary, string, error)
	Propose(ctx context.Context, agent app.Agent, roomToken string, in app.MoveInput) (*app.View, error)
	RequestConfirmation(ctx context.Context, agent app.Agent, roomToken string, verdict negotiation.Verdict, hash negotiation.SubjectHash) (*app.ConfirmationView, *app.View, error)
	// Receipt is an agreed room's receipt, by the id of a room the agent
	// just read.
	Receipt(ctx context.Context, roomID int64) (string, error)
}

type agentKey struct{}

// WithAgent returns ctx carrying the authenticated agent (the Fiber
// middleware puts it in the request's locals, which is the same thing).
func WithAgent(ctx context.Context, a app.Agent) context.Context {
	return context.WithValue(ctx, agentKey{}, a)
}

// AgentKey is the key the agent is kept under in a request's context (and
// in Fiber's locals).
var AgentKey any = agentKey{}

func agentFrom(ctx context.Context) (app.Agent, bool) {
	a, ok := ctx.Value(agentKey{}).(app.Agent)
	return a, ok
}

// Server is the MCP server with its tools, built once.
type Server struct {
	mcp     *mcp.Server
	handler http.Handler
	svc     Service
	rate    RateLimit
	// failures is the limit on failed authentications per client address
	// (WithAuthFailureLimit), trusted the proxies that name the client.
	failures RateLimit
	trusted  []netip.Prefix
	// perAccount is how many requests of one account's agents are served
	// at once (WithAccountConcurrency; 0: no limit).
	perAccount int
	names      []string // the tools' names
	log        *slog.Logger
	metrics    *Metrics
	refusals   *refusals.Refusals // nil: refusals at the door neither counted nor logged
}

// WithRateLimit sets the per-agent rate limit Mount applies (the zero
// RateLimit: none) and returns s.
func (s *Server) WithRateLimit(rl RateLimit) *Server {
	s.rate = rl
	return s
}

// WithAccountConcurrency sets how many requests of one account's agents
// Mount serves at once in this process (0: no limit), past which it
// answers 429 (inflight.go), and returns s.
func (s *Server) WithAccountConcurrency(n int) *Server {
	s.perAccount = n
	return s
}

// WithLogger sets where internal errors are logged (each with its tool,
// account and agent; never the call's arguments) and returns s. Without
// one they are counted (WithMetrics) but not logged.
func (s *Server) WithLogger(log *slog.Logger) *Server {
	if log != nil {
		s.log = log
	}
	return s
}

// WithMetrics counts every tool call in m (nil: none) and returns s.
func (s *Server) WithMetrics(m *Metrics) *Server {
	if m != nil {
		m.known(s.names)
	}
	s.metrics = m
	return s
}

// New builds the server and its tools.
func New(svc Service, version string) *Server {
	s := &Server{svc: svc}
	return s.serve(&mcp.Implementation{Name: "taasky", Title: "Taasky", Version: version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: capabilities}, s.tools())
}

// capabilities are what a stateless server does: tools, and no
// notifications. go-sdk's defaults announced {"logging": {}} and tools
// with listChanged, which a stateless server never sends (there is no
// session to send them on, and a GET for a stream is 405): a client that
// believed them would keep waiting on a stream or a log that never comes.
var capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}

// MaxBody is the largest request body a call may have (go-sdk answers 413
// past it). A proxy's own limit must be above it, or the proxy answers a
// body too large with its page instead of Taasky's words (deploy/nginx,
// cmd/taasky's TestNginxExample).
const MaxBody = 1 << 20

// serve builds s's go-sdk server with tools, stateless, answering in JSON.
func (s *Server) serve(impl *mcp.Implementation, opts *mcp.ServerOptions, tools []tool) *Server {
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.mcp = mcp.NewServer(impl, opts)
	for _, t := range tools {
		s.mcp.AddTool(t.def, s.wrap(t))
		s.names = append(s.names, t.def.Name)
	}
	s.handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: MaxBody})
	return s
}

const instructions = `Taasky lets you negotiate terms (a meeting time, a place, a fee) with another person's agent. Nothing is agreed until both humans confirm the exact same terms: you propose and counter; approving, rejecting and cancelling are released only by your human, who is notified. Call negotiation_read before every move: it says whose turn it is and what you may do next; when you must wait, read with wait_seconds instead of polling.`

// tool is one tool: its public definition and its handler.
type tool struct {
	def    *mcp.Tool
	handle func(ctx context.Context, agent app.Agent, args json.RawMessage) (any, error)
	// waits: the handler bounds its own call (callTimeout and its wait).
	waits bool
}

// callTimeout bounds what one call waits for the database (a read's
// wait_seconds comes on top of it). Without it a call whose connection
// was to a primary that hung or vanished (its machine gone: no reset)
// waited as long as the kernel kept the connection, a quarter of an hour
// or for ever, holding its pool connection, and its agent was never
// answered; past it the agent is told to retry (answerOf), and pgx closes
// the connection. A call takes milliseconds.
const callTimeout = 10 * time.Second

// wrap reads the agent, runs the handler and turns its result into
// structured content, and any refusal into a tool error with one line. An
// internal error is answered "internal error" and logged with the tool,
// the account and the agent (the arguments hold keys, tokens and limits:
// they are not logged). Every call is counted with its outcome.
func (s *Server) wrap(t tool) mcp.ToolHandler {
	name := t.def.Name
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		agent, ok := agentFrom(ctx)
		var b []byte
		var err error
		if !ok {
			err = app.Errorf(app.ErrUnauthorized, "not authenticated")
		} else {
			if !t.waits {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, callTimeout)
				defer cancel()
			}
			b, err = result(t.handle(ctx, agent, req.Params.Arguments))
		}
		outcome := outcomeOK
		switch {
		case err == nil:
		case app.ErrorCodeOf(err) == app.ErrInternal:
			outcome = outcomeInternal
			s.log.ErrorContext(ctx, "tool call failed", "tool", name, "account", agent.AccountSlug, "agent_id", agent.ID, "err", err)
		default:
			outcome = outcomeRefused
		}
		s.metrics.observe(name, outcome, time.Since(start))
		if err != nil {
			return refusal(err), nil
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	}
}

// result is a handler's result as JSON.
func result(out any, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if b, ok := out.(json.RawMessage); ok { // rendered already
		return b, nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	return b, nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// WithAuthFailureLimit sets how many failed authentications (an unknown,
// revoked or malformed bearer) Mount allows one client address a minute,
// a token bucket per address (0: no limit); past them its bearers are
// refused before they are looked up, but for those that authenticated
// before in this process. The client address is ratelimit.ClientAddr's:
// behind one of trusted, X-Forwarded-For's; an IPv6 one as its /64.
// It returns s.
func (s *Server) WithAuthFailureLimit(perMinute int, trusted []netip.Prefix) *Server {
	s.failures = RateLimit{Rate: float64(perMinute) / 60, Burst: perMinute}
	s.trusted = trusted
	return s
}
