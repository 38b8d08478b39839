package oauthserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"github.com/ory/fosite"
	"github.com/ory/fosite/storage"

	"github.com/taasky/taasky/app"
)

// State is what the server keeps in the database (app.OAuth).
type State interface {
	Client(ctx context.Context, id string) (app.OAuthClient, error)
	SaveClient(ctx context.Context, c app.OAuthClient) (app.OAuthClient, error)
	ClientKnown(ctx context.Context, clientID string) (bool, error)
	SaveToken(ctx context.Context, t app.OAuthToken) error
	Token(ctx context.Context, kind app.OAuthTokenKind, signature string) (app.OAuthToken, error)
	DeleteToken(ctx context.Context, kind app.OAuthTokenKind, signature string) error
	DeactivateToken(ctx context.Context, kind app.OAuthTokenKind, signature string) (bool, error)
	RevokeGrant(ctx context.Context, requestID string, kind app.OAuthTokenKind) error
	ConnectableAccounts(ctx context.Context, userID int64) ([]app.Membership, error)
	Connect(ctx context.Context, userID int64, accountSlug string, client app.OAuthClient) (app.Agent, error)
	ConnectedAgent(ctx context.Context, accountID, agentID int64) (app.Agent, error)
	// BeginTx, Commit and Rollback: the token calls made with BeginTx's
	// ctx are one transaction.
	BeginTx(ctx context.Context) (context.Context, error)
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
}

var _ State = (*app.OAuth)(nil)

// store is fosite's storage over State. Requests are kept as JSON without
// the parameters that carry a secret.
type store struct {
	state   State
	clients *clients
}

// storedRequest is a fosite request as kept in oauth_tokens.request.
type storedRequest struct {
	ID              string          `json:"id"`
	RequestedAt     time.Time       `json:"requested_at"`
	ClientID        string          `json:"client_id"`
	Scopes          []string        `json:"scopes"`
	GrantedScopes   []string        `json:"granted_scopes"`
	Audience        []string        `json:"audience"`
	GrantedAudience []string        `json:"granted_audience"`
	Form            url.Values      `json:"form"`
	Session         json.RawMessage `json:"session"`
}

// secretParams never reach the database.
var secretParams = []string{"code", "code_verifier", "refresh_token", "client_secret", "client_assertion", "token"}

// storageFailure is a failure of the database, not of the token.
type storageFailure struct{ err error }

func (f *storageFailure) Error() string { return "oauth storage: " + f.err.Error() }
func (f *storageFailure) Unwrap() error { return f.err }

func storageError(err error) error {
	if app.ErrorCodeOf(err) == app.ErrNotFound {
		return fosite.ErrNotFound
	}
	return &storageFailure{err}
}

func (s *store) save(ctx context.Context, kind app.OAuthTokenKind, signature string, r fosite.Requester) error {
	sess, ok := r.GetSession().(*Session)
	if !ok {
		return &storageFailure{errors.New("the request has no Taasky session")}
	}
	form := url.Values{}
	for k, v := range r.GetRequestForm() {
		form[k] = v
	}
	for _, p := range secretParams {
		form.Del(p)
	}
	rawSession, err := json.Marshal(sess)
	if err != nil {
		return err
	}
	data, err := json.Marshal(storedRequest{ID: r.GetID(), RequestedAt: r.GetRequestedAt(), ClientID: r.GetClient().GetID(),
		Scopes: r.GetRequestedScopes(), GrantedScopes: r.GetGrantedScopes(), Audience: r.GetRequestedAudience(),
		GrantedAudience: r.GetGrantedAudience(), Form: form, Session: rawSession})
	if err != nil {
		return err
	}
	expires := sess.GetExpiresAt(tokenType(kind))
	if expires.IsZero() {
		expires = time.Now().Add(time.Hour)
	}
	err = s.state.SaveToken(ctx, app.OAuthToken{Signature: signature, Kind: kind, RequestID: r.GetID(),
		AccountID: sess.AccountID, AgentID: sess.AgentID, ClientID: r.GetClient().GetID(), Request: data, ExpiresAt: expires})
	if err != nil {
		return storageError(err)
	}
	return nil
}

func tokenType(kind app.OAuthTokenKind) fosite.TokenType {
	switch kind {
	case app.OAuthAccess:
		return fosite.AccessToken
	case app.OAuthRefresh:
		return fosite.RefreshToken
	}
	return fosite.AuthorizeCode
}

// load returns the request a code or token stands for; an inactive one is
// returned with inactive (fosite needs its request to revoke its grant).
func (s *store) load(ctx context.Context, kind app.OAuthTokenKind, signature string, into fosite.Session) (_ fosite.Requester, active bool, _ error) {
	t, err := s.state.Token(ctx, kind, signature)
	if err != nil {
		return nil, false, storageError(err)
	}
	var sr storedRequest
	if err := json.Unmarshal(t.Request, &sr); err != nil {
		return nil, false, &storageFailure{err}
	}
	sess, ok := into.(*Session)
	if !ok || sess == nil {
		sess = &Session{}
	}
	if err := json.Unmarshal(sr.Session, sess); err != nil {
		return nil, false, &storageFailure{err}
	}
	if sess.GrantedAt.IsZero() {
		// Stored before grants had a start: counted from this token's
		// request (its code's exchange or its rotation), and kept from
		// then on by the tokens rotated from it.
		sess.GrantedAt = sr.RequestedAt
	}
	// The client as stored when the grant was made: checking a token
	// never fetches a metadata document again (a client's host being down
	// must not end its tokens, nor an MCP call wait for it).
	c, err := s.state.Client(ctx, sr.ClientID)
	if err != nil {
		return nil, false, storageError(err)
	}
	client := s.clients.fosite(c)
	r := &fosite.Request{ID: sr.ID, RequestedAt: sr.RequestedAt, Client: client, RequestedScope: sr.Scopes,
		GrantedScope: sr.GrantedScopes, RequestedAudience: sr.Audience, GrantedAudience: sr.GrantedAudience,
		Form: sr.Form, Session: sess}
	if r.Form == nil {
		r.Form = url.Values{}
	}
	return r, t.Active, nil
}

// GetClient is fosite's: the client as Taasky stored it, never fetched
// here (clients.stored; an authorization fetches a metadata document first).
func (s *store) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	c, err := s.clients.stored(ctx, id)
	if err != nil {
		if app.ErrorCodeOf(err) == app.ErrInternal {
			return nil, &storageFailure{err}
		}
		return nil, fosite.ErrNotFound
	}
	return s.clients.fosite(c), nil
}

// fosite spends a code (or rotates a refresh token) and stores what it
// issues for it in one transaction: a second use at the same moment waits
// for the first, then finds the code spent and what it issued, which the
// token endpoint revokes (a reuse).
var _ storage.Transactional = (*store)(nil)

func (s *store) BeginTX(ctx context.Context) (context.Context, error) {
	ctx, err := s.state.BeginTx(ctx)
	if err != nil {
		return ctx, &storageFailure{err}
	}
	return ctx, nil
}

func (s *store) Commit(ctx context.Context) error {
	return storageErrorOrNil(s.state.Commit(ctx))
}

func (s *store) Rollback(ctx context.Context) error {
	return storageErrorOrNil(s.state.Rollback(ctx))
}

// Clients authenticate with PKCE only: no JWT assertions to remember.
func (s *store) ClientAssertionJWTValid(context.Context, string) error { return nil }

func (s *store) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }

func (s *store) CreateAuthorizeCodeSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.save(ctx, app.OAuthCode, signature, r)
}

func (s *store) GetAuthorizeCodeSession(ctx context.Context, signature string, sess fosite.Session) (fosite.Requester, error) {
	r, active, err := s.load(ctx, app.OAuthCode, signature, sess)
	if err != nil {
		return nil, err
	}
	if !active {
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

// InvalidateAuthorizeCodeSession spends the code, after a successful
// exchange only; its PKCE challenge goes with it (see
// DeletePKCERequestSession).
func (s *store) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	ok, err := s.state.DeactivateToken(ctx, app.OAuthCode, signature)
	if err != nil {
		return storageError(err)
	}
	if !ok {
		// Another exchange of the same code got there first.
		return fosite.ErrInvalidatedAuthorizeCode
	}
	return storageErrorOrNil(s.state.DeleteToken(ctx, app.OAuthPKCE, signature))
}

func (s *store) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.save(ctx, app.OAuthPKCE, signature, r)
}

func (s *store) GetPKCERequestSession(ctx context.Context, signature string, sess fosite.Session) (fosite.Requester, error) {
	r, _, err := s.load(ctx, app.OAuthPKCE, signature, sess)
	return r, err
}

// DeletePKCERequestSession keeps the challenge: fosite asks for it to go
// before it compares the verifier, so a wrong verifier (or a resource the
// grant is not for) would spend the code. A refused exchange changes
// nothing; the challenge goes when the code is spent
// (InvalidateAuthorizeCodeSession) or expires (the purge). Guessing a
// verifier is hopeless: S256 of at least 43 random characters, for a code
// that lives 5 minutes.
func (s *store) DeletePKCERequestSession(context.Context, string) error { return nil }

func (s *store) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.save(ctx, app.OAuthAccess, signature, r)
}

func (s *store) GetAccessTokenSession(ctx context.Context, signature string, sess fosite.Session) (fosite.Requester, error) {
	r, _, err := s.load(ctx, app.OAuthAccess, signature, sess)
	return r, err
}

func (s *store) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return storageErrorOrNil(s.state.DeleteToken(ctx, app.OAuthAccess, signature))
}

func (s *store) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return s.save(ctx, app.OAuthRefresh, signature, r)
}

func (s *store) GetRefreshTokenSession(ctx context.Context, signature string, sess fosite.Session) (fosite.Requester, error) {
	r, active, err := s.load(ctx, app.OAuthRefresh, signature, sess)
	if err != nil {
		return nil, err
	}
	if !active {
		return r, fosite.ErrInactiveToken
	}
	return r, nil
}

func (s *store) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return storageErrorOrNil(s.state.DeleteToken(ctx, app.OAuthRefresh, signature))
}

// RotateRefreshToken marks the refresh token used (a later use of it is a
// reuse, which revokes the grant) and ends the grant's access tokens.
func (s *store) RotateRefreshToken(ctx context.Context, requestID, signature string) error {
	ok, err := s.state.DeactivateToken(ctx, app.OAuthRefresh, signature)
	if err != nil {
		return storageError(err)
	}
	if !ok {
		// A concurrent refresh with the same token won.
		return fosite.ErrSerializationFailure
	}
	return storageErrorOrNil(s.state.RevokeGrant(ctx, requestID, app.OAuthAccess))
}

func (s *store) RevokeRefreshToken(ctx context.Context, requestID string) error {
	return storageErrorOrNil(s.state.RevokeGrant(ctx, requestID, app.OAuthRefresh))
}

func (s *store) RevokeAccessToken(ctx context.Context, requestID string) error {
	return storageErrorOrNil(s.state.RevokeGrant(ctx, requestID, app.OAuthAccess))
}

func storageErrorOrNil(err error) error {
	if err == nil {
		return nil
	}
	return storageError(err)
}
