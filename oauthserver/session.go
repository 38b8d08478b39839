package oauthserver

import (
	"time"

	"github.com/ory/fosite"
)

// Session is what a grant carries from the consent to every token issued
// under it: the agent it acts as, when the person consented, and when each
// token expires.
type Session struct {
	AccountID   int64  `json:"account_id"`
	AccountSlug string `json:"account_slug"`
	AgentID     int64  `json:"agent_id"`
	UserID      int64  `json:"user_id"`
	// GrantedAt is the person's consent: a rotated refresh token carries
	// its grant's session, so this stays the first one's, and the grant
	// ends GrantMaxAge after it (grantEnd). Zero in a session stored
	// before grants had an end (the store fills in the token's own time).
	GrantedAt time.Time                      `json:"granted_at,omitzero"`
	ExpiresAt map[fosite.TokenType]time.Time `json:"expires_at"`
}

var _ fosite.Session = (*Session)(nil)

func (s *Session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

func (s *Session) GetExpiresAt(key fosite.TokenType) time.Time { return s.ExpiresAt[key] }

func (s *Session) GetUsername() string { return "" }

func (s *Session) GetSubject() string { return s.AccountSlug }

func (s *Session) Clone() fosite.Session {
	c := *s
	c.ExpiresAt = make(map[fosite.TokenType]time.Time, len(s.ExpiresAt))
	for k, v := range s.ExpiresAt {
		c.ExpiresAt[k] = v
	}
	return &c
}
