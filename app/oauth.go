package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OAuth holds what Taasky's authorization server (MCP authorization, OAuth
// 2.1) keeps: its clients, the tokens it issued (by signature, never the
// token), and the agents people connected with it. The protocol itself
// (codes, PKCE, rotation) is the oauthserver package's; this is its state.
type OAuth struct {
	pool     *pgxpool.Pool
	now      func() time.Time // the audit log's clock
	agentCap int              // SetAgentCap; 0: none
}

// NewOAuth returns the OAuth state over pool.
func NewOAuth(pool *pgxpool.Pool) *OAuth { return &OAuth{pool: pool, now: time.Now} }

// OAuthClientKind says how Taasky knows a client.
type OAuthClientKind string

const (
	// OAuthClientRegistered: registered by Dynamic Client Registration
	// (RFC 7591); Taasky made its client_id.
	OAuthClientRegistered OAuthClientKind = "registered"
	// OAuthClientMetadataDocument: its client_id is the https URL of a
	// Client ID Metadata Document, fetched (and fetched again once stale).
	OAuthClientMetadataDocument OAuthClientKind = "metadata_document"
)

// OAuthClient is an MCP client (an assistant) that may ask a person for a
// grant. Every client is public: it proves itself with PKCE, not a secret.
type OAuthClient struct {
	ID           string
	Kind         OAuthClientKind
	Name         string
	LogoURI      string
	ClientURI    string
	RedirectURIs []string
	CreatedAt    time.Time
	// FreshUntil: a metadata document is fetched again after it.
	FreshUntil *time.Time
}

// Host is the host the client speaks for: its client_id's (a metadata
// document) or its client_uri's; "" when it has neither.
func (c OAuthClient) Host() string {
	raw := c.ClientURI
	if c.Kind == OAuthClientMetadataDocument {
		raw = c.ID
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// OAuthTokenKind is what an OAuthToken row stands for.
type OAuthTokenKind string

const (
	OAuthCode    OAuthTokenKind = "code"
	OAuthPKCE    OAuthTokenKind = "pkce"
	OAuthAccess  OAuthTokenKind = "access"
	OAuthRefresh OAuthTokenKind = "refresh"
)

// OAuthToken is a code or token as stored: its signature (an HMAC of it),
// the grant it belongs to (RequestID) and the request it stands for,
// serialized by the authorization server (no secrets in it).
type OAuthToken struct {
	Signature string
	Kind      OAuthTokenKind
	RequestID string
	AccountID int64
	AgentID   int64
	ClientID  string
	Request   []byte
	Active    bool
	ExpiresAt time.Time
}

// OAuthConnection is an agent connected with OAuth, as Settings lists it.
type OAuthConnection struct {
	AccountID      int64
	AgentID        int64
	ClientID       string
	ClientName     string
	UserID         int64
	ConnectedAt    time.Time
	LastUsedAt     *time.Time
	DisconnectedAt *time.Time
}

// Client returns the client with id; ErrNotFound if Taasky does not know it.
func (o *OAuth) Client(ctx context.Context, id string) (OAuthClient, error) {
	c, err := selectOAuthClient(ctx, o.pool, id)
	if err != nil {
		return OAuthClient{}, fmt.Errorf("oauth client: %w", notFound(err, "error.oauth_client_unknown", "client_id: no client %q is registered with Taasky (register with Dynamic Client Registration, or use a Client ID Metadata Document URL)", id))
	}
	return c, nil
}

// SaveClient inserts a client, or replaces a metadata document's client by
// its fresh copy.
func (o *OAuth) SaveClient(ctx context.Context, c OAuthClient) (OAuthClient, error) {
	saved, err := upsertOAuthClient(ctx, o.pool, c)
	if err != nil {
		return OAuthClient{}, fmt.Errorf("save oauth client: %w", err)
	}
	return saved, nil
}

// oauthTxKey carries the transaction BeginTx started in a context.
type oauthTxKey struct{}

// BeginTx starts a transaction that the token calls (SaveToken, Token,
// DeleteToken, DeactivateToken, RevokeGrant) made with the returned ctx
// take part in, until Commit or Rollback: the authorization server spends
// a code or a refresh token and issues its successors at once (fosite's
// storage.Transactional), so that a second use waits for the first and
// finds what it issued.
func (o *OAuth) BeginTx(ctx context.Context) (context.Context, error) {
	tx, err := o.pool.Begin(ctx)
	if err != nil {
		return ctx, fmt.Errorf("oauth begin: %w", err)
	}
	return context.WithValue(ctx, oauthTxKey{}, tx), nil
}

// Commit commits the transaction BeginTx put in ctx.
func (o *OAuth) Commit(ctx context.Context) error {
	tx, ok := ctx.Value(oauthTxKey{}).(pgx.Tx)
	if !ok {
		return errors.New("oauth commit: no transaction")
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("oauth commit: %w", err)
	}
	return nil
}

// Rollback rolls back the transaction BeginTx put in ctx (one already
// ended: nothing happens).
func (o *OAuth) Rollback(ctx context.Context) error {
	tx, ok := ctx.Value(oauthTxKey{}).(pgx.Tx)
	if !ok {
		return errors.New("oauth rollback: no transaction")
	}
	if err := tx.Rollback(context.WithoutCancel(ctx)); err != nil && !errors.Is(err, pgx.ErrTxClosed) {
		return fmt.Errorf("oauth rollback: %w", err)
	}
	return nil
}

// q is ctx's transaction (BeginTx), else the pool.
func (o *OAuth) q(ctx context.Context) querier {
	if tx, ok := ctx.Value(oauthTxKey{}).(pgx.Tx); ok {
		return tx
	}
	return o.pool
}

// ClientKnown reports whether any person ever connected an agent with the
// client: the consent screen warns about a client new to Taasky.
func (o *OAuth) ClientKnown(ctx context.Context, clientID string) (bool, error) {
	ok, err := selectOAuthClientUsed(ctx, o.pool, clientID)
	if err != nil {
		return false, fmt.Errorf("oauth client known: %w", err)
	}
	return ok, nil
}

// SaveToken stores a code or token.
func (o *OAuth) SaveToken(ctx context.Context, t OAuthToken) error {
	if err := insertOAuthToken(ctx, o.q(ctx), t); err != nil {
		return fmt.Errorf("save oauth token: %w", err)
	}
	return nil
}

// Token returns the code or token of kind with signature, active or not;
// ErrNotFound if there is none (never issued, expired and swept, revoked).
func (o *OAuth) Token(ctx context.Context, kind OAuthTokenKind, signature string) (OAuthToken, error) {
	if !storableSignature(signature) {
		return OAuthToken{}, fmt.Errorf("oauth token: %w", Refuse(ErrNotFound, "", "no such %s", kind))
	}
	t, err := selectOAuthToken(ctx, o.q(ctx), kind, signature)
	if err != nil {
		return OAuthToken{}, fmt.Errorf("oauth token: %w", notFound(err, "", "no such %s", kind))
	}
	return t, nil
}

// storableSignature: signature is one PostgreSQL could hold in a text
// column (UTF-8, no NUL). A code or token is the client's to send, and
// its signature the part after its dot: one that is not is no code or
// token Taasky issued, never a query PostgreSQL refuses (answered 500).
func storableSignature(signature string) bool {
	return utf8.ValidString(signature) && !strings.ContainsRune(signature, 0)
}

// PurgeExpired deletes at most limit codes and tokens that expired before
// before, and says how many it deleted (jobs.PurgeWorker).
func (o *OAuth) PurgeExpired(ctx context.Context, before time.Time, limit int) (int, error) {
	n, err := deleteExpiredOAuthTokens(ctx, o.pool, before, limit)
	if err != nil {
		return 0, fmt.Errorf("purge expired oauth tokens: %w", err)
	}
	return n, nil
}

// DeleteToken deletes a code or token (none: nothing happens).
func (o *OAuth) DeleteToken(ctx context.Context, kind OAuthTokenKind, signature string) error {
	if !storableSignature(signature) {
		return nil // none was ever stored
	}
	if err := deleteOAuthToken(ctx, o.q(ctx), kind, signature); err != nil {
		return fmt.Errorf("delete oauth token: %w", err)
	}
	return nil
}

// DeactivateToken marks a code or refresh token used; false if it was
// already used (or is gone): a second use of the same one.
func (o *OAuth) DeactivateToken(ctx context.Context, kind OAuthTokenKind, signature string) (bool, error) {
	if !storableSignature(signature) {
		return false, nil // none was ever stored
	}
	ok, err := deactivateOAuthToken(ctx, o.q(ctx), kind, signature)
	if err != nil {
		return false, fmt.Errorf("deactivate oauth token: %w", err)
	}
	return ok, nil
}

// RevokeGrant ends the tokens of kind issued under one grant (requestID):
// refresh tokens are marked used (so a later use of one is still seen as a
// reuse), access tokens are deleted.
func (o *OAuth) RevokeGrant(ctx context.Context, requestID string, kind OAuthTokenKind) error {
	if err := revokeOAuthGrant(ctx, o.q(ctx), requestID, kind); err != nil {
		return fmt.Errorf("revoke oauth grant: %w", err)
	}
	return nil
}

// ConnectableAccounts are the accounts this person may connect an agent
// for on the consent screen. Today that is every account they are a member
// of (owner or member): the agent is theirs and asks them to confirm.
func (o *OAuth) ConnectableAccounts(ctx context.Context, userID int64) ([]Membership, error) {
	ms, err := connectableAccounts(ctx, o.pool, userID)
	if err != nil {
		return nil, fmt.Errorf("connectable accounts: %w", err)
	}
	return ms, nil
}

// connectableAccounts are the accounts in which userID may create an agent
// of their own (the role policy, May), which is what a consent does.
func connectableAccounts(ctx context.Context, q querier, userID int64) ([]Membership, error) {
	ms, err := selectMemberships(ctx, q, userID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ms, func(m Membership) bool { return !May(m.Role, ActCreateAgent, Mine) }), nil
}

// Connect is a person's consent: the agent of client for them in the
// account, created (named after the client) or, for the same client and
// person, the one they connected before, connected again. The audit log
// says which, by them, in the same transaction.
func (o *OAuth) Connect(ctx context.Context, userID int64, accountSlug string, client OAuthClient) (Agent, error) {
	var agent Agent
	err := pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		ms, err := connectableAccounts(ctx, tx, userID)
		if err != nil {
			return err
		}
		var acct *Membership
		for i := range ms {
			if ms[i].AccountSlug == accountSlug {
				acct = &ms[i]
			}
		}
		if acct == nil {
			return refuse(ErrUnauthorized, "error.oauth_not_member", "account: you are not a member of %q, so you cannot connect an agent for it", accountSlug)
		}
		// The account's row first, always: a consent at the same moment
		// (the same person pressing Allow twice, or another person of the
		// account) waits here, and then reads the grant and the names the
		// first one wrote. Read before the lock, both took the client's
		// name and the second was refused. The same lock is the cap's.
		if err := lockAccountMembers(ctx, tx, acct.AccountID); err != nil {
			return err
		}
		// The membership again, under the lock: a removal that committed
		// while this waited is refused as such (the agent's insert failed
		// on its owner's membership, an internal error).
		if m, err := selectMembershipByID(ctx, tx, userID, acct.AccountID); errors.Is(err, pgx.ErrNoRows) || (err == nil && !May(m.Role, ActCreateAgent, Mine)) {
			return refuse(ErrUnauthorized, "error.oauth_not_member", "account: you are not a member of %q, so you cannot connect an agent for it", accountSlug)
		} else if err != nil {
			return err
		}
		// The client is granted from now on: kept for good, where a
		// registration never granted expires (Retention).
		if ok, err := markOAuthClientGranted(ctx, tx, client.ID); err != nil {
			return err
		} else if !ok {
			return refuse(ErrInvalid, "error.oauth_client_unknown", "client_id: no client %q is registered with Taasky (register with Dynamic Client Registration, or use a Client ID Metadata Document URL)", client.ID)
		}
		acting := 0
		if o.agentCap > 0 {
			if acting, err = countActingAgents(ctx, tx, acct.AccountID, 0); err != nil {
				return err
			}
		}
		agentID, err := reconnectOAuthAgent(ctx, tx, acct.AccountID, client.ID, userID)
		switch {
		case err == nil:
			// A disconnected agent did not count: connected again, it
			// acts again, held to the cap as a new one (refused: the
			// transaction, and the reconnection with it, is rolled back).
			if o.agentCap > 0 {
				now, err := countActingAgents(ctx, tx, acct.AccountID, 0)
				if err != nil {
					return err
				}
				if now > acting && now > o.agentCap {
					return agentsFull(o.agentCap)
				}
			}
			if agent, err = selectAgent(ctx, tx, accountSlug, agentID); err != nil {
				return err
			}
			return auditOAuthAgent(ctx, tx, agent, userID, AuditAgentReconnected, nil, client)
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		email, err := selectUserEmail(ctx, tx, userID)
		if err != nil {
			return err
		}
		name, err := freeAgentName(ctx, tx, acct.AccountID, agentNames(client.Name, email))
		if err != nil {
			return err
		}
		if err := checkAgentCap(ctx, tx, acct.AccountID, 0, o.agentCap); err != nil {
			return err
		}
		agent, err = insertAgent(ctx, tx, Account{ID: acct.AccountID, Slug: accountSlug, Name: acct.AccountName}, name, userID)
		if err != nil {
			return err
		}
		agent.OwnerEmail = email
		if err := insertOAuthAgent(ctx, tx, agent, client.ID); err != nil {
			return err
		}
		return auditOAuthAgent(ctx, tx, agent, userID, AuditAgentCreated, nil, client)
	})
	if err != nil {
		return Agent{}, fmt.Errorf("connect agent: %w", err)
	}
	return agent, nil
}

// auditOAuthAgent notes what a consent or a disconnection did to agent:
// the client by its name and host (what the consent screen showed), never
// a token.
func auditOAuthAgent(ctx context.Context, q querier, agent Agent, actor int64, action AuditAction, at *time.Time, client OAuthClient) error {
	detail := map[string]string{"agent": agent.Name, "owner": agent.OwnerEmail, "client": client.Name}
	if host := client.Host(); host != "" {
		detail["host"] = host
	}
	return insertAudit(ctx, q, agent.AccountID, actor, action, at, detail)
}

// agentNames are the names an OAuth agent may take, best first: the
// client's, then with its owner's email, then numbered.
func agentNames(client, email string) []string {
	cut := func(s string) string {
		r := []rune(s)
		if len(r) > 80 {
			r = r[:80]
		}
		return string(r)
	}
	names := []string{cut(client), cut(client + " (" + email + ")")}
	for i := 2; i <= 9; i++ {
		names = append(names, cut(fmt.Sprintf("%s %d (%s)", client, i, email)))
	}
	return names
}

// ConnectedAgent is the agent an access token was issued for, unless it
// was disconnected since or its human left the account (a token issued
// before the removal ended its grant); it notes the agent's last use (to
// the minute).
func (o *OAuth) ConnectedAgent(ctx context.Context, accountID, agentID int64) (Agent, error) {
	agent, disconnected, err := touchOAuthAgent(ctx, o.pool, accountID, agentID)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Agent{}, Errorf(ErrUnauthorized, "the agent of this token no longer exists")
	case err != nil:
		return Agent{}, fmt.Errorf("connected agent: %w", err)
	case disconnected || agent.OwnerUserID == 0:
		return Agent{}, Errorf(ErrUnauthorized, "this agent was disconnected; connect your assistant again")
	}
	return agent, nil
}

// Connections lists the account's agents connected with OAuth.
func (o *OAuth) Connections(ctx context.Context, accountSlug string) ([]OAuthConnection, error) {
	cs, err := selectOAuthConnections(ctx, o.pool, accountSlug)
	if err != nil {
		return nil, fmt.Errorf("oauth connections: %w", err)
	}
	return cs, nil
}

// Disconnect ends an OAuth agent's grant at once: every token of it is
// deleted (the next call with one gets 401) and none is issued again until
// its person consents again. The audit log names ctx's actor (AsActor;
// none: an operator). Disconnecting twice does nothing more, and is not
// audited again.
func (o *OAuth) Disconnect(ctx context.Context, accountSlug string, agentID int64) error {
	err := pgx.BeginFunc(ctx, o.pool, func(tx pgx.Tx) error {
		clientID, ended, err := disconnectOAuthAgent(ctx, tx, accountSlug, agentID)
		if err != nil || !ended {
			return err
		}
		agent, err := selectAgent(ctx, tx, accountSlug, agentID)
		if err != nil {
			return err
		}
		client, err := selectOAuthClient(ctx, tx, clientID)
		if err != nil {
			return err
		}
		return auditOAuthAgent(ctx, tx, agent, actorOf(ctx), AuditAgentDisconnected, nil, client)
	})
	if err != nil {
		return fmt.Errorf("disconnect agent: %w", notFound(err, "error.not_connected", "agent %s of account %s is not connected with OAuth", strconv.FormatInt(agentID, 10), accountSlug))
	}
	return nil
}

// AccountExists reports whether an account with slug exists (a resource's
// metadata names only accounts that do).
func (a *Accounts) AccountExists(ctx context.Context, slug string) (bool, error) {
	_, err := selectAccountBySlug(ctx, a.pool, slug)
	switch ErrorCodeOf(err) {
	case "":
		return true, nil
	case ErrNotFound:
		return false, nil
	}
	return false, fmt.Errorf("account exists: %w", err)
}

// OAuthAuthorization is what the consent screen shows of an authorization
// request: which client asks, where its answer goes, for which account,
// and why this person may not consent, if they may not.
type OAuthAuthorization struct {
	Client OAuthClient
	// NewClient: nobody connected an agent with this client before.
	NewClient    bool
	RedirectURI  string
	RedirectHost string
	// ClientHost is the host of the client_id (a metadata document) or of
	// its client_uri; HostDiffers: the redirect goes to another host.
	ClientHost  string
	HostDiffers bool
	// Resource is the MCP URL the grant is for; Fixed: it names the
	// account (Accounts holds that one), else the person chooses.
	Resource string
	Fixed    bool
	Accounts []Membership
	// Refusal says why this person cannot connect an agent here (nil: they can).
	Refusal *Error
}
