package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/taasky/taasky/app"
)

// OAuthAuthenticator is an Authenticator that also checks OAuth access
// tokens (MCP authorization): Taasky's authorization server. With one,
// a call without a bearer is answered 401 with the resource metadata's
// URL (RFC 9728), so a client can find where to get a token; a token is
// valid only on the resource it was granted for (RFC 8707).
type OAuthAuthenticator interface {
	Authenticator
	AuthenticateAccessToken(ctx context.Context, token, resource string) (app.Agent, error)
	ResourceURL(account string) string
	ResourceMetadataURL(account string) string
}

// agentKeyPrefix starts every agent key; any other bearer is an access token.
const agentKeyPrefix = "tsk_"

func authenticate(ctx context.Context, auth Authenticator, tokens OAuthAuthenticator, bearer, account string) (app.Agent, error) {
	if tokens == nil || strings.HasPrefix(bearer, agentKeyPrefix) {
		return auth.AuthenticateAgentKey(ctx, bearer)
	}
	return tokens.AuthenticateAccessToken(ctx, bearer, tokens.ResourceURL(account))
}

// challenge is the WWW-Authenticate of a 401 at account's endpoint.
func challenge(tokens OAuthAuthenticator, account string) string {
	const realm = `Bearer realm="taasky"`
	if tokens == nil {
		return realm
	}
	return realm + `, resource_metadata="` + tokens.ResourceMetadataURL(uriSegment(account)) + `", scope="negotiate"`
}

// uriSegment is the path's account segment as a URI in a quoted-string
// can hold it: fasthttp takes a request line with a raw quote, backslash,
// DEL or non-ASCII byte in its path, and Fiber's parameter is the segment
// as sent; such bytes are percent-encoded (RFC 3986 §2.1), so that
// `a",x="y` adds no parameter to the challenge. What a URI's segment
// holds as it is (a slug, a %22 already encoded) is left.
func uriSegment(account string) string {
	const kept = "-._~%!$&'()*+,;=:@"
	var b strings.Builder
	for i := 0; i < len(account); i++ {
		c := account[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(kept, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func missingBearer(tokens OAuthAuthenticator) string {
	if tokens == nil {
		return "Authorization: Bearer <agent key> is required"
	}
	return "Authorization: Bearer <agent key or OAuth access token> is required (an MCP client finds how to get a token from the resource_metadata in WWW-Authenticate)"
}

func invalidBearer(tokens OAuthAuthenticator, bearer string, err error) string {
	if tokens == nil || strings.HasPrefix(bearer, agentKeyPrefix) {
		return "the agent key is not valid (unknown or revoked)"
	}
	return app.ErrorMessageOf(err)
}
