package devoidc

import (
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// authRequest is one sign-in in progress (op.AuthRequest).
type authRequest struct {
	id, clientID, redirectURI, state, nonce, subject string
	scopes                                           []string
	responseType                                     oidc.ResponseType
	responseMode                                     oidc.ResponseMode
	challenge                                        *oidc.CodeChallenge
	created, authTime                                time.Time
	done                                             bool
	code                                             string // issued once signed in (SaveAuthCode)
}

var _ op.AuthRequest = (*authRequest)(nil)

func (r *authRequest) GetID() string                         { return r.id }
func (r *authRequest) GetACR() string                        { return "" }
func (r *authRequest) GetAudience() []string                 { return []string{r.clientID} }
func (r *authRequest) GetAuthTime() time.Time                { return r.authTime }
func (r *authRequest) GetClientID() string                   { return r.clientID }
func (r *authRequest) GetCodeChallenge() *oidc.CodeChallenge { return r.challenge }
func (r *authRequest) GetNonce() string                      { return r.nonce }
func (r *authRequest) GetRedirectURI() string                { return r.redirectURI }
func (r *authRequest) GetResponseType() oidc.ResponseType    { return r.responseType }
func (r *authRequest) GetResponseMode() oidc.ResponseMode    { return r.responseMode }
func (r *authRequest) GetScopes() []string                   { return r.scopes }
func (r *authRequest) GetState() string                      { return r.state }
func (r *authRequest) GetSubject() string                    { return r.subject }
func (r *authRequest) Done() bool                            { return r.done }

func (r *authRequest) GetAMR() []string {
	if r.done {
		return []string{"pwd"}
	}
	return nil
}

// client is a registered relying party (op.Client): a confidential web
// app using the authorization code flow.
type client struct {
	Client
	loginURL string
}

var _ op.Client = (*client)(nil)

func (c *client) GetID() string                       { return c.ID }
func (c *client) RedirectURIs() []string              { return c.Client.RedirectURIs }
func (c *client) PostLogoutRedirectURIs() []string    { return nil }
func (c *client) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *client) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *client) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *client) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *client) LoginURL(id string) string           { return c.loginURL + id }
func (c *client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeBearer }
func (c *client) IDTokenLifetime() time.Duration      { return 5 * time.Minute }
func (c *client) DevMode() bool                       { return true }
func (c *client) IsScopeAllowed(string) bool          { return false }
func (c *client) ClockSkew() time.Duration            { return 0 }

// IDTokenUserinfoClaimsAssertion puts the email in the ID token itself.
func (c *client) IDTokenUserinfoClaimsAssertion() bool { return true }

func (c *client) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

func (c *client) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
