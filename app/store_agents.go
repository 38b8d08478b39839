package app

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// The SQL of agents and agent keys. Every query is scoped by the account.
// Lookups that find nothing return pgx.ErrNoRows (wrapped).

const agentColumns = `g.id, g.account_id, a.slug, g.name, coalesce(g.owner_user_id, 0), coalesce(u.email, ''), g.created_at`

const agentJoins = `agents g
	JOIN accounts a ON a.id = g.account_id
	LEFT JOIN users u ON u.id = g.owner_user_id`

func scanAgent(row pgx.Row, extra ...any) (Agent, error) {
	var g Agent
	err := row.Scan(append([]any{&g.ID, &g.AccountID, &g.AccountSlug, &g.Name, &g.OwnerUserID, &g.OwnerEmail, &g.CreatedAt}, extra...)...)
	g.Name = shownName(g.Name) // one stored before the name rule, as every door shows it
	return g, err
}

func insertAgent(ctx context.Context, q querier, acct Account, name string, ownerUserID int64) (Agent, error) {
	g := Agent{AccountID: acct.ID, AccountSlug: acct.Slug, Name: name, OwnerUserID: ownerUserID}
	err := q.QueryRow(ctx,
		`INSERT INTO agents (account_id, name, owner_user_id) VALUES ($1, $2, $3) RETURNING id, created_at`,
		acct.ID, name, ownerUserID).Scan(&g.ID, &g.CreatedAt)
	if isUniqueViolation(err, "agents_account_id_name_key") {
		return Agent{}, refuse(ErrConflict, "error.agent_name_taken", "agent name already taken in account %s: %s", acct.Slug, name)
	}
	if err != nil {
		return Agent{}, fmt.Errorf("insertAgent %s: %w", acct.Slug, err)
	}
	return g, nil
}

func selectAgent(ctx context.Context, q querier, accountSlug string, agentID int64) (Agent, error) {
	g, err := scanAgent(q.QueryRow(ctx,
		`SELECT `+agentColumns+` FROM `+agentJoins+` WHERE a.slug = $1 AND g.id = $2`,
		accountSlug, agentID))
	if err != nil {
		return Agent{}, fmt.Errorf("selectAgent %s %d: %w", accountSlug, agentID, err)
	}
	return g, nil
}

func selectAgents(ctx context.Context, q querier, acct Account) ([]Agent, error) {
	rows, err := q.Query(ctx,
		`SELECT `+agentColumns+` FROM `+agentJoins+` WHERE g.account_id = $1 ORDER BY g.id`,
		acct.ID)
	if err != nil {
		return nil, fmt.Errorf("selectAgents %s: %w", acct.Slug, err)
	}
	agents, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Agent, error) { return scanAgent(row) })
	if err != nil {
		return nil, fmt.Errorf("selectAgents %s: %w", acct.Slug, err)
	}
	return agents, nil
}

// agentLive is true for an agent g that can act (countActingAgents): with
// a human, and an unrevoked key or a connected OAuth grant.
const agentLive = `(g.owner_user_id IS NOT NULL
	AND (EXISTS (SELECT 1 FROM agent_keys k WHERE k.account_id = g.account_id AND k.agent_id = g.id AND k.revoked_at IS NULL)
		OR EXISTS (SELECT 1 FROM oauth_agents o WHERE o.account_id = g.account_id AND o.agent_id = g.id AND o.disconnected_at IS NULL)))`

// selectWorkingAgents is the account's agents that can act, oldest first.
func selectWorkingAgents(ctx context.Context, q querier, acct Account) ([]Agent, error) {
	rows, err := q.Query(ctx,
		`SELECT `+agentColumns+` FROM `+agentJoins+` WHERE g.account_id = $1 AND `+agentLive+` ORDER BY g.id`,
		acct.ID)
	if err != nil {
		return nil, fmt.Errorf("selectWorkingAgents %s: %w", acct.Slug, err)
	}
	agents, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Agent, error) { return scanAgent(row) })
	if err != nil {
		return nil, fmt.Errorf("selectWorkingAgents %s: %w", acct.Slug, err)
	}
	return agents, nil
}

// selectRetiredAgents is the account's newest limit agents that cannot
// act, newest retired first, and how many it has in all.
func selectRetiredAgents(ctx context.Context, q querier, acct Account, limit int) ([]RetiredAgent, int, error) {
	rows, err := q.Query(ctx, `SELECT `+agentColumns+`,
			CASE WHEN g.owner_user_id IS NULL THEN 'left' WHEN o.agent_id IS NOT NULL THEN 'disconnected' ELSE 'revoked' END,
			coalesce(greatest(o.disconnected_at, (SELECT max(k.revoked_at) FROM agent_keys k WHERE k.account_id = g.account_id AND k.agent_id = g.id)), g.created_at) AS since,
			o.agent_id IS NOT NULL, count(*) OVER ()
		FROM `+agentJoins+`
		LEFT JOIN oauth_agents o ON o.account_id = g.account_id AND o.agent_id = g.id
		WHERE g.account_id = $1 AND NOT `+agentLive+`
		ORDER BY since DESC, g.id DESC LIMIT $2`, acct.ID, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("selectRetiredAgents %s: %w", acct.Slug, err)
	}
	total := 0
	agents, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RetiredAgent, error) {
		var r RetiredAgent
		var err error
		r.Agent, err = scanAgent(row, &r.Why, &r.Since, &r.OAuth, &total)
		return r, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("selectRetiredAgents %s: %w", acct.Slug, err)
	}
	return agents, total, nil
}

// selectAgentByKeyHash finds a key's agent and says whether the key is revoked.
func selectAgentByKeyHash(ctx context.Context, q querier, keyHash []byte) (Agent, bool, error) {
	var revoked bool
	g, err := scanAgent(q.QueryRow(ctx, `
		SELECT `+agentColumns+`, k.revoked_at IS NOT NULL
		FROM `+agentJoins+`
		JOIN agent_keys k ON k.account_id = g.account_id AND k.agent_id = g.id
		WHERE k.key_hash = $1`, keyHash), &revoked)
	if err != nil {
		return Agent{}, false, fmt.Errorf("selectAgentByKeyHash: %w", err)
	}
	return g, revoked, nil
}

// insertAgentKey stores a key issued by issuedBy (0: an operator).
func insertAgentKey(ctx context.Context, q querier, g Agent, keyHash []byte, prefix string, issuedBy int64) (AgentKey, error) {
	k := AgentKey{AccountID: g.AccountID, AgentID: g.ID, Prefix: prefix}
	err := q.QueryRow(ctx, `
		INSERT INTO agent_keys (account_id, agent_id, key_hash, prefix, issued_by)
		VALUES ($1, $2, $3, $4, nullif($5, 0)) RETURNING id, created_at`,
		g.AccountID, g.ID, keyHash, prefix, issuedBy).Scan(&k.ID, &k.CreatedAt)
	if err != nil {
		return AgentKey{}, fmt.Errorf("insertAgentKey %d: %w", g.ID, err)
	}
	return k, nil
}

func selectAgentKeys(ctx context.Context, q querier, g Agent) ([]AgentKey, error) {
	rows, err := q.Query(ctx, `
		SELECT id, account_id, agent_id, prefix, created_at, revoked_at
		FROM agent_keys WHERE account_id = $1 AND agent_id = $2 ORDER BY id`,
		g.AccountID, g.ID)
	if err != nil {
		return nil, fmt.Errorf("selectAgentKeys %d: %w", g.ID, err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AgentKey, error) {
		var k AgentKey
		err := row.Scan(&k.ID, &k.AccountID, &k.AgentID, &k.Prefix, &k.CreatedAt, &k.RevokedAt)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("selectAgentKeys %d: %w", g.ID, err)
	}
	return keys, nil
}

// selectShownKeys is an agent's unrevoked keys and its newest revoked
// ones, at most revoked of them, oldest first; and whether it has older
// revoked keys.
func selectShownKeys(ctx context.Context, q querier, g Agent, revoked int) ([]AgentKey, bool, error) {
	rows, err := q.Query(ctx, `
		(SELECT id, account_id, agent_id, prefix, created_at, revoked_at FROM agent_keys
		WHERE account_id = $1 AND agent_id = $2 AND revoked_at IS NULL)
		UNION ALL
		(SELECT id, account_id, agent_id, prefix, created_at, revoked_at FROM agent_keys
		WHERE account_id = $1 AND agent_id = $2 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC, id DESC LIMIT $3)`,
		g.AccountID, g.ID, revoked+1)
	if err != nil {
		return nil, false, fmt.Errorf("selectShownKeys %d: %w", g.ID, err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AgentKey, error) {
		var k AgentKey
		err := row.Scan(&k.ID, &k.AccountID, &k.AgentID, &k.Prefix, &k.CreatedAt, &k.RevokedAt)
		return k, err
	})
	if err != nil {
		return nil, false, fmt.Errorf("selectShownKeys %d: %w", g.ID, err)
	}
	var live, revokedKeys []AgentKey
	for _, k := range keys {
		if k.RevokedAt == nil {
			live = append(live, k)
		} else {
			revokedKeys = append(revokedKeys, k)
		}
	}
	slices.SortFunc(revokedKeys, func(x, y AgentKey) int { // newest first
		return cmp.Or(y.RevokedAt.Compare(*x.RevokedAt), cmp.Compare(y.ID, x.ID))
	})
	more := len(revokedKeys) > revoked
	if more {
		revokedKeys = revokedKeys[:revoked]
	}
	keys = append(live, revokedKeys...)
	slices.SortFunc(keys, func(x, y AgentKey) int { return cmp.Compare(x.ID, y.ID) })
	return keys, more, nil
}

// revokeAgentKey sets revoked_at once (a revoked key keeps its first time)
// and returns the key's hash.
func revokeAgentKey(ctx context.Context, q querier, accountSlug string, keyID int64) ([]byte, error) {
	var keyHash []byte
	err := q.QueryRow(ctx, `
		UPDATE agent_keys k SET revoked_at = coalesce(k.revoked_at, now())
		FROM accounts a
		WHERE a.slug = $1 AND k.account_id = a.id AND k.id = $2
		RETURNING k.key_hash`,
		accountSlug, keyID).Scan(&keyHash)
	if err != nil {
		return nil, fmt.Errorf("revokeAgentKey %s %d: %w", accountSlug, keyID, err)
	}
	return keyHash, nil
}

// selectKeyAgent is the agent of the account's key keyID, and the key's prefix.
func selectKeyAgent(ctx context.Context, q querier, accountSlug string, keyID int64) (Agent, string, error) {
	var prefix string
	g, err := scanAgent(q.QueryRow(ctx, `SELECT `+agentColumns+`, k.prefix FROM `+agentJoins+`
		JOIN agent_keys k ON k.account_id = g.account_id AND k.agent_id = g.id
		WHERE a.slug = $1 AND k.id = $2`, accountSlug, keyID), &prefix)
	if err != nil {
		return Agent{}, "", fmt.Errorf("selectKeyAgent %s %d: %w", accountSlug, keyID, err)
	}
	return g, prefix, nil
}

// countActingAgents counts the account's agents that can act: with a
// human, and an unrevoked key or a connected OAuth grant; except is one
// not counted (0: none).
func countActingAgents(ctx context.Context, q querier, accountID, except int64) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM agents g
		WHERE g.account_id = $1 AND g.id <> $2 AND g.owner_user_id IS NOT NULL
		AND (EXISTS (SELECT 1 FROM agent_keys k WHERE k.account_id = g.account_id AND k.agent_id = g.id AND k.revoked_at IS NULL)
			OR EXISTS (SELECT 1 FROM oauth_agents o WHERE o.account_id = g.account_id AND o.agent_id = g.id AND o.disconnected_at IS NULL))`,
		accountID, except).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("countActingAgents %d: %w", accountID, err)
	}
	return n, nil
}

// countLiveKeys counts the agent's unrevoked keys.
func countLiveKeys(ctx context.Context, q querier, g Agent) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM agent_keys WHERE account_id = $1 AND agent_id = $2 AND revoked_at IS NULL`,
		g.AccountID, g.ID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("countLiveKeys %d: %w", g.ID, err)
	}
	return n, nil
}
