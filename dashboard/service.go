package dashboard

import (
	"context"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// Rooms is what the dashboard needs of the negotiation service.
type Rooms interface {
	ListForHuman(ctx context.Context, userID int64, f app.RoomFilter, cursor string) ([]app.HumanSummary, string, error)
	CountWaiting(ctx context.Context, userID int64) (int, error)
	ForHuman(ctx context.Context, userID, roomID int64, want negotiation.Side, answered string) (*app.HumanRoom, error)
	SeesRoom(ctx context.Context, userID, roomID int64) error
	RoomAccounts(ctx context.Context, roomID int64) ([]int64, error)
	DecideAsOwner(ctx context.Context, userID, roomID int64, confirmationID string, hashSeen negotiation.SubjectHash, accept bool) (*app.Decision, error)
	OneTapCard(ctx context.Context, token string) (*app.OneTap, error)
	DecideOneTap(ctx context.Context, token string, hashSeen negotiation.SubjectHash, accept bool) (*app.Decision, error)
	InvitationByCode(ctx context.Context, code string, loc *time.Location) (*app.Invitation, error)
	AnswerInvitation(ctx context.Context, code string, ans app.PersonAnswer) (*app.PersonResult, error)
	PersonRoom(ctx context.Context, token string, loc *time.Location) (*app.HumanRoom, error)
	PersonRoomID(ctx context.Context, token string) (int64, error)
	AnswerAsPerson(ctx context.Context, token string, ans app.PersonAnswer) (*app.PersonResult, error)
}

// Accounts is what the dashboard needs of accounts, users and agents.
type Accounts interface {
	LoginOIDC(ctx context.Context, id app.OIDCIdentity) (app.User, error)
	UserByID(ctx context.Context, id int64) (app.User, error)
	Memberships(ctx context.Context, userID int64) ([]app.Membership, error)
	SetUserTimeZone(ctx context.Context, userID int64, tz string) error
	ListAgents(ctx context.Context, accountSlug string) ([]app.Agent, error)
	ListAgentKeys(ctx context.Context, accountSlug string, agentID int64) ([]app.AgentKey, error)
	CreateAgent(ctx context.Context, accountSlug, name, ownerEmail string) (app.Agent, app.NewAgentKey, error)
	IssueAgentKey(ctx context.Context, accountSlug string, agentID int64) (app.NewAgentKey, error)
	RevokeAgentKey(ctx context.Context, accountSlug string, keyID int64) error
}

var (
	_ Rooms    = (*app.Rooms)(nil)
	_ Accounts = (*app.Accounts)(nil)
)
