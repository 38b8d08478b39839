package oauthserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ory/fosite"

	"github.com/taasky/taasky/app"
)

// AuthenticateAccessToken is the MCP door's check of an access token for
// resource (ResourceURL of the path called): the agent it acts as. A
// token that is unknown, expired, revoked, for another resource (a token
// for /mcp is taken at its agent's account's URL too), or whose agent was
// disconnected is ErrUnauthorized; a database failure is not.
func (s *Server) AuthenticateAccessToken(ctx context.Context, token, resource string) (app.Agent, error) {
	sess := &Session{}
	// fosite tries a refresh token too when the token is not an access
	// token: a refresh token is never a bearer (RFC 6749 §1.5).
	use, ar, err := s.provider.IntrospectToken(ctx, token, fosite.AccessToken, sess)
	if err == nil && use != fosite.AccessToken {
		return app.Agent{}, app.Errorf(app.ErrUnauthorized, "this is a refresh token: send it to the token endpoint for an access token, and call with that")
	}
	if err != nil {
		if f, ok := errors.AsType[*storageFailure](err); ok {
			return app.Agent{}, fmt.Errorf("authenticate access token: %w", f.err)
		}
		if errors.Is(err, fosite.ErrTokenExpired) {
			return app.Agent{}, app.Errorf(app.ErrUnauthorized, "the access token expired; refresh it")
		}
		return app.Agent{}, app.Errorf(app.ErrUnauthorized, "the access token is not valid (unknown, expired or revoked)")
	}
	aud := ar.GetGrantedAudience()
	if slices.Contains(aud, resource) {
		return s.store.state.ConnectedAgent(ctx, sess.AccountID, sess.AgentID)
	}
	// A token for /mcp (a client that named no resource: MCP 2025-03-26
	// has no resource metadata) acts for the agent the person connected in
	// the account they chose; at that account's own URL, where the person
	// may have pasted it, it is the same agent with no more power.
	if slices.Contains(aud, s.ResourceURL("")) && strings.HasPrefix(resource, s.ResourceURL("")+"/") {
		ag, err := s.store.state.ConnectedAgent(ctx, sess.AccountID, sess.AgentID)
		if err != nil || s.ResourceURL(ag.AccountSlug) == resource {
			return ag, err
		}
		return app.Agent{}, app.Errorf(app.ErrUnauthorized, "this access token is for %s, where its agent is in account %q, not for %s",
			strings.Join(aud, " "), ag.AccountSlug, resource)
	}
	return app.Agent{}, app.Errorf(app.ErrUnauthorized, "this access token is for %s, not for %s", strings.Join(aud, " "), resource)
}
