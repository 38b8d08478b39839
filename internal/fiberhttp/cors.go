package fiberhttp

// What the doors a client calls from a browser (the MCP door, the OAuth
// endpoints and their metadata documents) answer to any origin. They
// take a bearer token, never a cookie or another ambient credential, so
// a page of any origin can do with them only what its token allows:
// "*", and never Access-Control-Allow-Credentials. The dashboard, whose
// session is a cookie, answers no origin but its own.
const (
	// CORSAllowHeaders are the request headers a client of the MCP door
	// or of the OAuth endpoints sends: MCP's streamable HTTP transport's
	// (a session, the protocol's version, a stream's resumption), and
	// MCP-Protocol-Version on the metadata documents too (the TypeScript
	// SDK sends it there).
	CORSAllowHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID"
	// CORSExposeHeaders are the answer's headers a client reads: the
	// session, the challenge of a 401 (where the resource metadata is),
	// when to retry a 429 or 503, and the request's id to report.
	CORSExposeHeaders = "Mcp-Session-Id, WWW-Authenticate, Retry-After, X-Request-Id"
	// CORSMaxAge is how long, in seconds, a browser may reuse a
	// preflight's answer (Chromium caps it at 2 hours).
	CORSMaxAge = "7200"
)
