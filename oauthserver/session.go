package oauthserver

import (
	"time"

	"github.com/ory/fosite"
)

// Session is what a grant carries from the consent to every token issued
// under it: the agent it acts as, and when each token expires.
type Session struct {
	AccountID   int64                          `json:"account_id"`
	AccountSlug string                         `json:"account_slug"`
	AgentID     int64                          `json:"agent_id"`
	UserID      int64                          `json:"user_id"`
	ExpiresAt   map[fosite.TokenType]time.Time `json:"expires_at"`
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
