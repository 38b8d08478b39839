package app

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// The SQL of the authorization server: clients, tokens (by signature) and
// OAuth agents. Lookups that find nothing return pgx.ErrNoRows (wrapped).

const oauthClientColumns = `id, kind, name, logo_uri, client_uri, redirect_uris, created_at, fresh_until`

func scanOAuthClient(row pgx.Row) (OAuthClient, error) {
	var c OAuthClient
	err := row.Scan(&c.ID, &c.Kind, &c.Name, &c.LogoURI, &c.ClientURI, &c.RedirectURIs, &c.CreatedAt, &c.FreshUntil)
	// A client registered before the name rule: shown safely, and an agent
	// named after it (agentNames) keeps the rule.
	c.Name = shownName(c.Name)
	return c, err
}

func selectOAuthClient(ctx context.Context, q querier, id string) (OAuthClient, error) {
	if !storableText(id) {
		return OAuthClient{}, fmt.Errorf("selectOAuthClient: %w", pgx.ErrNoRows)
	}
	c, err := scanOAuthClient(q.QueryRow(ctx, `SELECT `+oauthClientColumns+` FROM oauth_clients WHERE id = $1`, id))
	if err != nil {
		return OAuthClient{}, fmt.Errorf("selectOAuthClient: %w", err)
	}
	return c, nil
}

func upsertOAuthClient(ctx context.Context, q querier, c OAuthClient) (OAuthClient, error) {
	saved, err := scanOAuthClient(q.QueryRow(ctx, `
		INSERT INTO oauth_clients (id, kind, name, logo_uri, client_uri, redirect_uris, fresh_until)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, logo_uri = EXCLUDED.logo_uri,
			client_uri = EXCLUDED.client_uri, redirect_uris = EXCLUDED.redirect_uris,
			fresh_until = EXCLUDED.fresh_until
		WHERE oauth_clients.kind = 'metadata_document' AND EXCLUDED.kind = 'metadata_document'
		RETURNING `+oauthClientColumns,
		c.ID, c.Kind, c.Name, c.LogoURI, c.ClientURI, c.RedirectURIs, c.FreshUntil))
	if err != nil {
		return OAuthClient{}, fmt.Errorf("upsertOAuthClient: %w", err)
	}
	return saved, nil
}

func selectOAuthClientUsed(ctx context.Context, q querier, clientID string) (bool, error) {
	if !storableText(clientID) {
		return false, nil
	}
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM oauth_agents WHERE client_id = $1)`, clientID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("selectOAuthClientUsed: %w", err)
	}
	return ok, nil
}

func insertOAuthToken(ctx context.Context, q querier, t OAuthToken) error {
	_, err := q.Exec(ctx, `
		INSERT INTO oauth_tokens (signature, kind, request_id, account_id, agent_id, client_id, request, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		t.Signature, t.Kind, t.RequestID, t.AccountID, t.AgentID, t.ClientID, t.Request, t.ExpiresAt)
	if err != nil {
		return fmt.Errorf("insertOAuthToken %s: %w", t.Kind, err)
	}
	return nil
}

func selectOAuthToken(ctx context.Context, q querier, kind OAuthTokenKind, signature string) (OAuthToken, error) {
	t := OAuthToken{Signature: signature, Kind: kind}
	err := q.QueryRow(ctx, `
		SELECT request_id, account_id, agent_id, client_id, request, active, expires_at
		FROM oauth_tokens WHERE signature = $1 AND kind = $2`, signature, kind).
		Scan(&t.RequestID, &t.AccountID, &t.AgentID, &t.ClientID, &t.Request, &t.Active, &t.ExpiresAt)
	if err != nil {
		return OAuthToken{}, fmt.Errorf("selectOAuthToken %s: %w", kind, err)
	}
	return t, nil
}

func deleteOAuthToken(ctx context.Context, q querier, kind OAuthTokenKind, signature string) error {
	if _, err := q.Exec(ctx, `DELETE FROM oauth_tokens WHERE signature = $1 AND kind = $2`, signature, kind); err != nil {
		return fmt.Errorf("deleteOAuthToken %s: %w", kind, err)
	}
	return nil
}

// deactivateOAuthToken spends a code or refresh token, only while its
// agent is connected: the agent's oauth_agents row is locked FOR SHARE
// first (and kept, in the transaction that issues the successors), so a
// disconnection, which locks it FOR UPDATE before deleting the agent's
// tokens, either comes first (nothing is spent) or waits and then deletes
// what was issued too.
func deactivateOAuthToken(ctx context.Context, q querier, kind OAuthTokenKind, signature string) (bool, error) {
	tag, err := q.Exec(ctx, `
		UPDATE oauth_tokens t SET active = false
		WHERE t.signature = $1 AND t.kind = $2 AND t.active
		  AND EXISTS (SELECT 1 FROM oauth_agents o
		              WHERE o.account_id = t.account_id AND o.agent_id = t.agent_id AND o.disconnected_at IS NULL
		              FOR SHARE)`, signature, kind)
	if err != nil {
		return false, fmt.Errorf("deactivateOAuthToken %s: %w", kind, err)
	}
	return tag.RowsAffected() == 1, nil
}

// deleteExpiredOAuthTokens deletes at most limit codes and tokens that
// expired before before (through oauth_tokens_expires).
func deleteExpiredOAuthTokens(ctx context.Context, q querier, before time.Time, limit int) (int, error) {
	tag, err := q.Exec(ctx, `
		DELETE FROM oauth_tokens WHERE (signature, kind) IN (
			SELECT signature, kind FROM oauth_tokens WHERE expires_at < $1 LIMIT $2)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("deleteExpiredOAuthTokens: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

func revokeOAuthGrant(ctx context.Context, q querier, requestID string, kind OAuthTokenKind) error {
	sql := `UPDATE oauth_tokens SET active = false WHERE request_id = $1 AND kind = $2 AND active`
	if kind == OAuthAccess {
		sql = `DELETE FROM oauth_tokens WHERE request_id = $1 AND kind = $2`
	}
	if _, err := q.Exec(ctx, sql, requestID, kind); err != nil {
		return fmt.Errorf("revokeOAuthGrant %s: %w", kind, err)
	}
	return nil
}

// reconnectOAuthAgent finds the agent the person connected with the
// client before and connects it again, unless it is no longer theirs (they
// left the account since: insertOAuthAgent then links a new one).
func reconnectOAuthAgent(ctx context.Context, q querier, accountID int64, clientID string, userID int64) (int64, error) {
	var agentID int64
	err := q.QueryRow(ctx, `
		UPDATE oauth_agents o SET disconnected_at = NULL, connected_at = now()
		FROM agents g
		WHERE o.account_id = $1 AND o.client_id = $2 AND o.user_id = $3
		  AND g.account_id = o.account_id AND g.id = o.agent_id AND g.owner_user_id = $3
		RETURNING o.agent_id`, accountID, clientID, userID).Scan(&agentID)
	if err != nil {
		return 0, fmt.Errorf("reconnectOAuthAgent: %w", err)
	}
	return agentID, nil
}

// freeAgentName is the first of names no agent of the account has.
func freeAgentName(ctx context.Context, q querier, accountID int64, names []string) (string, error) {
	rows, err := q.Query(ctx, `SELECT name FROM agents WHERE account_id = $1 AND name = ANY($2)`, accountID, names)
	if err != nil {
		return "", fmt.Errorf("freeAgentName: %w", err)
	}
	taken, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return "", fmt.Errorf("freeAgentName: %w", err)
	}
	used := map[string]bool{}
	for _, n := range taken {
		used[n] = true
	}
	for _, n := range names {
		if !used[n] {
			return n, nil
		}
	}
	return "", refuse(ErrConflict, "error.agent_names_taken", "agent name: the account already has agents named %q and its variants; rename one in Settings", names[0])
}

// insertOAuthAgent links g to the person's grant for the client; an agent
// linked before, whose human left the account since, is unlinked (it
// stays, with no human and no grant).
func insertOAuthAgent(ctx context.Context, q querier, g Agent, clientID string) error {
	_, err := q.Exec(ctx, `INSERT INTO oauth_agents (account_id, agent_id, client_id, user_id) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, client_id, user_id) DO UPDATE SET agent_id = EXCLUDED.agent_id,
			connected_at = now(), last_used_at = NULL, disconnected_at = NULL`,
		g.AccountID, g.ID, clientID, g.OwnerUserID)
	if err != nil {
		return fmt.Errorf("insertOAuthAgent %d: %w", g.ID, err)
	}
	return nil
}

// touchOAuthAgent reads an OAuth agent and notes its use, at most once a
// minute, in one statement.
func touchOAuthAgent(ctx context.Context, q querier, accountID, agentID int64) (Agent, bool, error) {
	var disconnected bool
	g, err := scanAgent(q.QueryRow(ctx, `
		WITH touched AS (
			UPDATE oauth_agents SET last_used_at = now()
			WHERE account_id = $1 AND agent_id = $2 AND disconnected_at IS NULL
			  AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
			RETURNING agent_id
		)
		SELECT `+agentColumns+`, o.disconnected_at IS NOT NULL
		FROM `+agentJoins+`
		JOIN oauth_agents o ON o.account_id = g.account_id AND o.agent_id = g.id
		WHERE g.account_id = $1 AND g.id = $2`, accountID, agentID), &disconnected)
	if err != nil {
		return Agent{}, false, fmt.Errorf("touchOAuthAgent %d: %w", agentID, err)
	}
	return g, disconnected, nil
}

func selectOAuthConnections(ctx context.Context, q querier, accountSlug string) ([]OAuthConnection, error) {
	rows, err := q.Query(ctx, `
		SELECT o.account_id, o.agent_id, o.client_id, c.name, o.user_id, o.connected_at, o.last_used_at, o.disconnected_at
		FROM oauth_agents o
		JOIN accounts a ON a.id = o.account_id
		JOIN oauth_clients c ON c.id = o.client_id
		WHERE a.slug = $1 ORDER BY o.agent_id`, accountSlug)
	if err != nil {
		return nil, fmt.Errorf("selectOAuthConnections %s: %w", accountSlug, err)
	}
	cs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (OAuthConnection, error) {
		var c OAuthConnection
		err := row.Scan(&c.AccountID, &c.AgentID, &c.ClientID, &c.ClientName, &c.UserID, &c.ConnectedAt, &c.LastUsedAt, &c.DisconnectedAt)
		c.ClientName = shownName(c.ClientName)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectOAuthConnections %s: %w", accountSlug, err)
	}
	return cs, nil
}

// disconnectOAuthAgent ends an OAuth agent's grant and deletes its tokens;
// it returns the agent's client and whether this call ended the grant
// (false: it was disconnected already). The row is locked first, so that
// of two disconnections at once only one says it ended the grant.
func disconnectOAuthAgent(ctx context.Context, q querier, accountSlug string, agentID int64) (string, bool, error) {
	var accountID int64
	var clientID string
	var connected bool
	err := q.QueryRow(ctx, `
		SELECT o.account_id, o.client_id, o.disconnected_at IS NULL
		FROM oauth_agents o JOIN accounts a ON a.id = o.account_id
		WHERE a.slug = $1 AND o.agent_id = $2
		FOR UPDATE OF o`, accountSlug, agentID).Scan(&accountID, &clientID, &connected)
	if err != nil {
		return "", false, fmt.Errorf("disconnectOAuthAgent %s %d: %w", accountSlug, agentID, err)
	}
	if _, err := q.Exec(ctx, `
		WITH t AS (DELETE FROM oauth_tokens WHERE account_id = $1 AND agent_id = $2)
		UPDATE oauth_agents SET disconnected_at = coalesce(disconnected_at, now())
		WHERE account_id = $1 AND agent_id = $2`, accountID, agentID); err != nil {
		return "", false, fmt.Errorf("disconnectOAuthAgent %s %d: %w", accountSlug, agentID, err)
	}
	return clientID, connected, nil
}

// disconnectMemberOAuthAgents ends the OAuth grants of the agents userID
// owns in the account (a removal, before the membership goes): their
// tokens are deleted. It says how many were connected.
func disconnectMemberOAuthAgents(ctx context.Context, q querier, accountID, userID int64, at time.Time) (int, error) {
	// Locked first, as disconnectOAuthAgent does: a refresh issuing tokens
	// holds the row FOR SHARE until it commits, and the DELETE below, a
	// statement begun after, sees what it issued.
	if _, err := q.Exec(ctx, `
		SELECT 1 FROM oauth_agents
		WHERE account_id = $1 AND agent_id IN (SELECT id FROM agents WHERE account_id = $1 AND owner_user_id = $2)
		FOR UPDATE`, accountID, userID); err != nil {
		return 0, fmt.Errorf("disconnectMemberOAuthAgents %d %d: %w", accountID, userID, err)
	}
	tag, err := q.Exec(ctx, `
		WITH mine AS (SELECT id FROM agents WHERE account_id = $1 AND owner_user_id = $2),
		t AS (DELETE FROM oauth_tokens WHERE account_id = $1 AND agent_id IN (SELECT id FROM mine))
		UPDATE oauth_agents SET disconnected_at = $3
		WHERE account_id = $1 AND agent_id IN (SELECT id FROM mine) AND disconnected_at IS NULL`, accountID, userID, at)
	if err != nil {
		return 0, fmt.Errorf("disconnectMemberOAuthAgents %d %d: %w", accountID, userID, err)
	}
	return int(tag.RowsAffected()), nil
}

// markOAuthClientGranted notes a client's first grant (a consent), in the
// consent's transaction; the row lock makes a purge of ungranted clients
// running at the same moment skip it (its DELETE rechecks granted_at). It
// says whether the client is still there: false, the purge deleted it
// first (a registration that had waited out its period).
func markOAuthClientGranted(ctx context.Context, q querier, clientID string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `
		WITH marked AS (
			UPDATE oauth_clients SET granted_at = now() WHERE id = $1 AND granted_at IS NULL RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM marked) OR EXISTS (SELECT 1 FROM oauth_clients WHERE id = $1)`, clientID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("markOAuthClientGranted: %w", err)
	}
	return ok, nil
}

// deleteUngrantedOAuthClients deletes at most limit clients never granted
// and created before before, oldest first (through
// oauth_clients_ungranted). granted_at is checked again on the row
// deleted: a consent that marked it meanwhile keeps it. A client with a
// connected agent is kept whatever granted_at says (a process of the
// version before 00035 connects without setting it, and the agent's row
// refers to the client).
func deleteUngrantedOAuthClients(ctx context.Context, q querier, before time.Time, limit int) (int, error) {
	tag, err := q.Exec(ctx, `
		DELETE FROM oauth_clients c
		WHERE c.id IN (SELECT id FROM oauth_clients k
		               WHERE granted_at IS NULL AND created_at < $1
		                 AND NOT EXISTS (SELECT 1 FROM oauth_agents o WHERE o.client_id = k.id)
		               ORDER BY created_at LIMIT $2)
		  AND c.granted_at IS NULL
		  AND NOT EXISTS (SELECT 1 FROM oauth_agents o WHERE o.client_id = c.id)`, before, limit)
	if err != nil {
		return 0, fmt.Errorf("deleteUngrantedOAuthClients: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
