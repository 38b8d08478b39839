package devoidc

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// storage is op.Storage in memory: auth requests, codes, access tokens,
// the signing key and who signed in. Refresh tokens are not offered.
type storage struct {
	issuer  string
	clients map[string]*client
	key     *rsa.PrivateKey
	keyID   string

	mu       sync.Mutex
	requests map[string]*authRequest
	codes    map[string]string // code → request id
	tokens   map[string]*token
	emails   map[string]string // subject → email
}

var _ op.Storage = (*storage)(nil)

func newStorage(issuer string, clients []Client, key *rsa.PrivateKey) *storage {
	s := &storage{issuer: issuer, clients: map[string]*client{}, key: key, keyID: randomID(),
		requests: map[string]*authRequest{}, codes: map[string]string{}, tokens: map[string]*token{}, emails: map[string]string{}}
	for _, c := range clients {
		s.clients[c.ID] = &client{Client: c, loginURL: issuer + "/login?authRequestID="}
	}
	return s
}

func randomID() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// subjectOf is a stable subject for an email: the same across restarts, so
// the dashboard links the same user each time.
func subjectOf(email string) string {
	h := sha256.Sum256([]byte("taasky-dev\x00" + email))
	return "dev-" + hex.EncodeToString(h[:12])
}

type token struct {
	id, clientID, subject string
	audience, scopes      []string
	expires               time.Time
}

// signIn marks an auth request as authenticated for email.
func (s *storage) signIn(id, email string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return errors.New("this sign-in request has expired; start again from Taasky")
	}
	email = strings.Clone(email) // see CreateAuthRequest
	sub := subjectOf(email)
	s.emails[sub] = email
	r.subject, r.done, r.authTime = sub, true, time.Now()
	return nil
}

func (s *storage) CreateAuthRequest(_ context.Context, req *oidc.AuthRequest, userID string) (op.AuthRequest, error) {
	if len(req.Prompt) == 1 && req.Prompt[0] == oidc.PromptNone {
		return nil, oidc.ErrLoginRequired()
	}
	// Served through Fiber's adaptor, the request's strings point into a
	// buffer that is reused after the request: keep copies.
	c := strings.Clone
	r := &authRequest{id: randomID(), created: time.Now(), clientID: c(req.ClientID), redirectURI: c(req.RedirectURI),
		state: c(req.State), nonce: c(req.Nonce), responseType: oidc.ResponseType(c(string(req.ResponseType))),
		responseMode: oidc.ResponseMode(c(string(req.ResponseMode))), subject: c(userID)}
	for _, sc := range req.Scopes {
		r.scopes = append(r.scopes, c(sc))
	}
	if req.CodeChallenge != "" {
		r.challenge = &oidc.CodeChallenge{Challenge: c(req.CodeChallenge), Method: oidc.CodeChallengeMethod(c(string(req.CodeChallengeMethod)))}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.requests { // forget sign-ins abandoned long ago, with their codes
		if time.Since(old.created) > 30*time.Minute {
			delete(s.requests, id)
			delete(s.codes, old.code)
		}
	}
	s.requests[r.id] = r
	return r, nil
}

func (s *storage) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return nil, errors.New("auth request not found")
	}
	return r, nil
}

// AuthRequestByCode takes code: the exchange that asks for it first has
// it, and no other, even one asking in the same instant (RFC 6749 §4.1.2:
// a code is used once). zitadel's exchange looks the code up here and
// deletes the request only after signing its tokens: two exchanges of one
// code at once both had tokens.
func (s *storage) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.codes[code]
	delete(s.codes, code)
	r, found := s.requests[id]
	if !ok || !found {
		return nil, errors.New("code invalid or expired")
	}
	return r, nil
}

func (s *storage) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.requests[id]
	if !ok {
		return errors.New("this sign-in request has expired; start again from Taasky")
	}
	delete(s.codes, r.code) // a request has one code: an earlier one goes
	r.code = strings.Clone(code)
	s.codes[r.code] = r.id
	return nil
}

func (s *storage) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.requests[id]; ok {
		delete(s.codes, r.code)
		delete(s.requests, id)
	}
	return nil
}

func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	t := &token{id: randomID(), subject: req.GetSubject(), audience: req.GetAudience(), scopes: req.GetScopes(),
		expires: time.Now().Add(5 * time.Minute)}
	if r, ok := req.(*authRequest); ok {
		t.clientID = r.clientID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, old := range s.tokens {
		if time.Now().After(old.expires) {
			delete(s.tokens, id)
		}
	}
	s.tokens[t.id] = t
	return t.id, t.expires, nil
}

func (s *storage) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("refresh tokens are not offered")
}

func (s *storage) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, errors.New("refresh tokens are not offered")
}

func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range s.tokens {
		if t.subject == userID && t.clientID == clientID {
			delete(s.tokens, id)
		}
	}
	return nil
}

func (s *storage) RevokeToken(_ context.Context, tokenID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[tokenID]; ok && t.clientID == clientID {
		delete(s.tokens, tokenID)
	}
	return nil
}

func (s *storage) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

func (s *storage) SigningKey(context.Context) (op.SigningKey, error) { return signingKey{s}, nil }

func (s *storage) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *storage) KeySet(context.Context) ([]op.Key, error) { return []op.Key{publicKey{s}}, nil }

func (s *storage) GetClientByClientID(_ context.Context, id string) (op.Client, error) {
	c, ok := s.clients[id]
	if !ok {
		return nil, errors.New("client not found")
	}
	return c, nil
}

func (s *storage) AuthorizeClientIDSecret(_ context.Context, id, secret string) error {
	c, ok := s.clients[id]
	if !ok || subtle.ConstantTimeCompare([]byte(c.Secret), []byte(secret)) != 1 {
		return errors.New("invalid client or secret")
	}
	return nil
}

func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's claims.
func (s *storage) SetUserinfoFromRequest(_ context.Context, ui *oidc.UserInfo, req op.IDTokenRequest, scopes []string) error {
	return s.userinfo(ui, req.GetSubject(), scopes)
}

func (s *storage) SetUserinfoFromToken(_ context.Context, ui *oidc.UserInfo, tokenID, _, _ string) error {
	s.mu.Lock()
	t, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || time.Now().After(t.expires) {
		return errors.New("token is invalid or has expired")
	}
	return s.userinfo(ui, t.subject, t.scopes)
}

func (s *storage) userinfo(ui *oidc.UserInfo, subject string, scopes []string) error {
	s.mu.Lock()
	email, ok := s.emails[subject]
	s.mu.Unlock()
	if !ok {
		return errors.New("user not found")
	}
	for _, sc := range scopes {
		switch sc {
		case oidc.ScopeOpenID:
			ui.Subject = subject
		case oidc.ScopeEmail:
			ui.Email, ui.EmailVerified = email, true
		case oidc.ScopeProfile:
			ui.PreferredUsername = email
		}
	}
	return nil
}

func (s *storage) SetIntrospectionFromToken(_ context.Context, in *oidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	return errors.New("introspection is not offered")
}

func (s *storage) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *storage) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("JWT profile grants are not offered")
}

func (s *storage) ValidateJWTProfileScopes(context.Context, string, []string) ([]string, error) {
	return nil, errors.New("JWT profile grants are not offered")
}

func (s *storage) Health(context.Context) error { return nil }

type signingKey struct{ s *storage }

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.s.key }
func (k signingKey) ID() string                                  { return k.s.keyID }

type publicKey struct{ s *storage }

func (k publicKey) ID() string                         { return k.s.keyID }
func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.s.key.PublicKey }
