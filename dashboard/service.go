package dashboard

import (
	"context"
	"io"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// Rooms is what the dashboard needs of the negotiation service.
type Rooms interface {
	ListForHuman(ctx context.Context, userID int64, f app.RoomFilter, cursor string) ([]app.HumanSummary, string, error)
	CountWaiting(ctx context.Context, userID int64) (int, error)
	ReceiptOnRecord(ctx context.Context, roomID int64, jws string) (kept bool, backupPoint *time.Time, err error)
	ForHuman(ctx context.Context, userID, roomID int64, want negotiation.Side, answered string) (*app.HumanRoom, error)
	WriteAccountExport(ctx context.Context, actorID int64, slug string, w io.Writer) error
	WriteMemberData(ctx context.Context, userID int64, w io.Writer) error
	PersonData(ctx context.Context, token string) (*app.PersonData, error)
	DeleteAccount(ctx context.Context, actorID int64, slug, typed string) (app.DeletedAccount, error)
	SeesRoom(ctx context.Context, userID, roomID int64) error
	RoomSeats(ctx context.Context, roomID int64) ([]app.RoomSeat, error)
	DecideAsOwner(ctx context.Context, userID, roomID int64, confirmationID string, hashSeen negotiation.SubjectHash, accept bool) (*app.Decision, error)
	// CancelForSeat ends a room for its side whose human left (owners).
	CancelForSeat(ctx context.Context, userID, roomID int64, side negotiation.Side) (*app.Decision, error)
	OneTapCard(ctx context.Context, token string) (*app.OneTap, error)
	DecideOneTap(ctx context.Context, token string, hashSeen negotiation.SubjectHash, accept bool) (*app.Decision, error)
	InvitationByCode(ctx context.Context, code string, loc *time.Location) (*app.Invitation, error)
	AnswerInvitation(ctx context.Context, code string, ans app.PersonAnswer) (*app.PersonResult, error)
	PersonRoom(ctx context.Context, token string, loc *time.Location) (*app.HumanRoom, error)
	PersonRoomID(ctx context.Context, token string) (int64, error)
	AnswerAsPerson(ctx context.Context, token string, ans app.PersonAnswer) (*app.PersonResult, error)
	PersonAgreement(ctx context.Context, token string, loc *time.Location, withReceipt bool) (*app.PersonAgreement, error)
	ReceiptForHuman(ctx context.Context, userID, roomID int64) (string, error)
}

// Accounts is what the dashboard needs of accounts, users and agents.
type Accounts interface {
	LoginOIDC(ctx context.Context, id app.OIDCIdentity) (app.User, error)
	StartSession(ctx context.Context, userID int64, device app.SessionDevice) (string, app.Session, error)
	SessionUser(ctx context.Context, token string) (app.SignedIn, error)
	Sessions(ctx context.Context, userID int64) ([]app.Session, error)
	EndSession(ctx context.Context, token string) error
	EndOtherSession(ctx context.Context, userID, id int64, keepToken string) error
	EndOtherSessions(ctx context.Context, userID int64, keepToken string) (int, error)
	DeleteProfile(ctx context.Context, userID int64, typed string) error
	Memberships(ctx context.Context, userID int64) ([]app.Membership, error)
	// DeletingAccounts names the user's accounts being deleted.
	DeletingAccounts(ctx context.Context, userID int64) ([]string, error)
	SetUserTimeZone(ctx context.Context, userID int64, tz string) error
	SetUserLanguage(ctx context.Context, userID int64, lang string) error
	NotePageLanguage(ctx context.Context, userID int64, lang string) error
	ListAgents(ctx context.Context, accountSlug string) ([]app.Agent, error)
	ListAgentKeys(ctx context.Context, accountSlug string, agentID int64) ([]app.AgentKey, error)
	ShownAgentKeys(ctx context.Context, accountSlug string, agentID int64) ([]app.AgentKey, bool, error)
	// SettingsAgents: the working agents, the newest retired ones, and how many more are retired.
	SettingsAgents(ctx context.Context, accountSlug string) ([]app.Agent, []app.RetiredAgent, int, error)
	CreateAgent(ctx context.Context, accountSlug, name, ownerEmail string) (app.Agent, app.NewAgentKey, error)
	IssueAgentKey(ctx context.Context, accountSlug string, agentID int64) (app.NewAgentKey, error)
	RevokeAgentKey(ctx context.Context, accountSlug string, keyID int64) error
	IsOperator(ctx context.Context, userID int64) (bool, error)
	Teams
}

// Teams is what the dashboard needs for sign-up, members and invitations.
// Every call that acts for a person is checked by app.May there too.
type Teams interface {
	SignUp(ctx context.Context, userID int64, name, slug string) (app.Account, error)
	Membership(ctx context.Context, userID int64, slug string) (app.Membership, error)
	Members(ctx context.Context, actorID int64, slug, cursor string) ([]app.Member, string, error)
	Invite(ctx context.Context, actorID int64, slug, email string, role app.MemberRole) (app.MemberInvitation, error)
	Invitations(ctx context.Context, actorID int64, slug string) ([]app.MemberInvitation, error)
	ResendInvitation(ctx context.Context, actorID int64, slug string, id int64) error
	RevokeInvitation(ctx context.Context, actorID int64, slug string, id int64) error
	InvitationByToken(ctx context.Context, token string) (app.MemberInvitation, error)
	AcceptInvitation(ctx context.Context, userID int64, token string) (app.Membership, error)
	ChangeRole(ctx context.Context, actorID int64, slug string, userID int64, role app.MemberRole) error
	RemoveMember(ctx context.Context, actorID int64, slug string, userID int64) error
	Leave(ctx context.Context, userID int64, slug string) error
	RenameAccount(ctx context.Context, actorID int64, slug, name string) (app.Account, error)
	AuditLog(ctx context.Context, actorID int64, accountSlug, cursor string) ([]app.AuditEntry, string, error)
}

// Notifications is what the dashboard needs of the notifications service:
// a human's channels (email on or off, push devices), their delivery log,
// and List-Unsubscribe links.
type Notifications interface {
	Prefs(ctx context.Context, userID int64) (app.NotifyPrefs, error)
	SetPrefs(ctx context.Context, userID int64, p app.NotifyPrefs) error
	Subscribe(ctx context.Context, userID int64, in app.PushSubscriptionInput) (app.PushSubscription, error)
	Unsubscribe(ctx context.Context, userID, id int64, endpoint string) error
	PushSubscriptions(ctx context.Context, userID int64) ([]app.PushSubscription, error)
	SendTestPush(ctx context.Context, userID, id int64) (int, error)
	DeliveryLogPage(ctx context.Context, userID int64, limit int, cursor string) ([]app.Delivery, string, error)
	UnsubscribeTokenValid(token string) bool
	UnsubscribeNotices(ctx context.Context, token string) (string, error)
	UnsubscribeLanguage(ctx context.Context, token string) (string, error)
	PersonUnsubscribeToken(token string) bool
	UnsubscribePerson(ctx context.Context, token string) (string, error)
	RefusingAddress(token string) (string, bool)
	RefuseInvitations(ctx context.Context, token string) (string, error)
}

// Webhooks is what the dashboard needs of the webhooks service: an
// account's endpoints (owners and admins, as the service checks), their
// secrets shown once, their delivery log, and "Send again".
type Webhooks interface {
	CreateWebhook(ctx context.Context, actorID int64, slug, url string, events []string) (app.WebhookEndpoint, string, error)
	ListWebhooks(ctx context.Context, actorID int64, slug string) ([]app.WebhookEndpoint, error)
	RotateWebhookSecret(ctx context.Context, actorID int64, slug string, id int64) (string, error)
	EnableWebhook(ctx context.Context, actorID int64, slug string, id int64) error
	DeleteWebhook(ctx context.Context, actorID int64, slug string, id int64) error
	WebhookLog(ctx context.Context, actorID int64, slug string, id int64) (app.WebhookEndpoint, []app.WebhookMessage, error)
	SendWebhookAgain(ctx context.Context, actorID int64, slug, messageID string) (int64, error)
}

var (
	_ Webhooks      = (*app.Webhooks)(nil)
	_ Rooms         = (*app.Rooms)(nil)
	_ Accounts      = (*app.Accounts)(nil)
	_ Notifications = (*app.Notifications)(nil)
)
