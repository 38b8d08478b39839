package app

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Agent is an AI agent that acts for its account over MCP, with API keys.
type Agent struct {
	ID          int64
	AccountID   int64
	AccountSlug string
	Name        string
	OwnerUserID int64 // the member whose human confirmations it asks for; 0: they left the account
	OwnerEmail  string
	CreatedAt   time.Time
}

// AgentKey is an agent's API key as stored: the key itself is not kept.
type AgentKey struct {
	ID        int64
	AccountID int64
	AgentID   int64
	Prefix    string // the key's first characters, to tell keys apart
	CreatedAt time.Time
	RevokedAt *time.Time
}

// NewAgentKey is a key just issued. Key is shown once and never again.
type NewAgentKey struct {
	AgentKey
	Key string
}

const (
	agentKeyPrefix  = "tsk_"
	agentKeyLen     = len(agentKeyPrefix) + 43 // 32 bytes, base64url unpadded
	agentKeyShowLen = len(agentKeyPrefix) + 8
)

// CreateAgent creates an agent in the account, owned by ownerEmail (who must
// be a member of it), and issues its first key.
func (a *Accounts) CreateAgent(ctx context.Context, accountSlug, name, ownerEmail string) (Agent, NewAgentKey, error) {
	name, err := checkName("agent name", name)
	if err != nil {
		return Agent{}, NewAgentKey{}, err
	}
	email, err := normalizeEmail("owner email", ownerEmail)
	if err != nil {
		return Agent{}, NewAgentKey{}, err
	}
	var agent Agent
	var key NewAgentKey
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acct, err := selectAccountBySlug(ctx, tx, accountSlug)
		if err != nil {
			return err
		}
		// The account's lock (the caps' and the members') before the
		// owner is read: a removal that committed while this waited is
		// seen, and refused as such (read before, the agent's insert
		// failed on its owner's membership, an internal error).
		if err := lockAccountMembers(ctx, tx, acct.ID); err != nil {
			return err
		}
		userID, err := selectMemberByEmail(ctx, tx, acct.ID, email)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrInvalid, "error.owner_not_member", "owner email: %s is not a member of account %s", email, acct.Slug)
		} else if err != nil {
			return err
		}
		if err := checkAgentCap(ctx, tx, acct.ID, 0, a.caps.AgentsPerAccount); err != nil {
			return err
		}
		if agent, err = insertAgent(ctx, tx, acct, name, userID); err != nil {
			return err
		}
		agent.OwnerEmail = email
		if key, err = issueKey(ctx, tx, agent); err != nil {
			return err
		}
		return auditAgent(ctx, tx, agent, actorOf(ctx), AuditAgentCreated, a.dbMoment(), key.Prefix)
	})
	if err != nil {
		return Agent{}, NewAgentKey{}, fmt.Errorf("create agent: %w", err)
	}
	return agent, key, nil
}

// IssueAgentKey issues another key for an agent of the account; the agent's
// other keys keep working until revoked.
func (a *Accounts) IssueAgentKey(ctx context.Context, accountSlug string, agentID int64) (NewAgentKey, error) {
	var key NewAgentKey
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		// The account's lock first (the caps' and the members'), then who
		// may: a demotion or removal that committed while this waited
		// holds (it revoked the keys its person had issued, so a key
		// issued after it on the role read before would outlive it), and
		// the agent's human is read as it stands.
		acct, err := selectAccountBySlug(ctx, tx, accountSlug)
		if ErrorCodeOf(err) == ErrNotFound && !isAccountDeleting(err) {
			return refuse(ErrNotFound, "error.agent_not_found", "agent %s not found in account %s", strconv.FormatInt(agentID, 10), accountSlug)
		} else if err != nil {
			return err
		}
		if err := lockAccountMembers(ctx, tx, acct.ID); err != nil {
			return err
		}
		agent, err := selectAgent(ctx, tx, accountSlug, agentID)
		if err != nil {
			return notFound(err, "error.agent_not_found", "agent %s not found in account %s", strconv.FormatInt(agentID, 10), accountSlug)
		}
		if err := mayManage(ctx, tx, agent); err != nil {
			return err
		}
		// A key can bring back an agent whose keys were all revoked: it
		// counts among the agents.
		if err := checkAgentCap(ctx, tx, agent.AccountID, agent.ID, a.caps.AgentsPerAccount); err != nil {
			return err
		}
		if err := checkKeyCap(ctx, tx, agent, a.caps.KeysPerAgent); err != nil {
			return err
		}
		if key, err = issueKey(ctx, tx, agent); err != nil {
			return err
		}
		return auditAgent(ctx, tx, agent, actorOf(ctx), AuditKeyIssued, a.dbMoment(), key.Prefix)
	})
	if err != nil {
		return NewAgentKey{}, fmt.Errorf("issue agent key: %w", err)
	}
	return key, nil
}

// RevokeAgentKey revokes a key of the account at once: this process
// refuses it from now on, and every other process as soon as the change's
// notification reaches it. Revoking a revoked key does nothing.
func (a *Accounts) RevokeAgentKey(ctx context.Context, accountSlug string, keyID int64) error {
	var keyHash []byte
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		agent, prefix, err := selectKeyAgent(ctx, tx, accountSlug, keyID)
		if err != nil {
			return notFound(err, "error.key_not_found", "key %s not found in account %s", strconv.FormatInt(keyID, 10), accountSlug)
		}
		if err := mayManage(ctx, tx, agent); err != nil {
			return err
		}
		if keyHash, err = revokeAgentKey(ctx, tx, accountSlug, keyID); err != nil {
			return err
		}
		return auditAgent(ctx, tx, agent, actorOf(ctx), AuditKeyRevoked, a.dbMoment(), prefix)
	})
	if err != nil {
		return fmt.Errorf("revoke agent key: %w", err)
	}
	a.keys.forgetHash(keyHash)
	return nil
}

// ListAgents returns the account's agents, oldest first.
func (a *Accounts) ListAgents(ctx context.Context, accountSlug string) ([]Agent, error) {
	acct, err := selectAccountBySlug(ctx, a.pool, accountSlug)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	agents, err := selectAgents(ctx, a.pool, acct)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return agents, nil
}

// ListAgentKeys returns an agent's keys, revoked ones included, oldest first.
func (a *Accounts) ListAgentKeys(ctx context.Context, accountSlug string, agentID int64) ([]AgentKey, error) {
	agent, err := selectAgent(ctx, a.pool, accountSlug, agentID)
	if err != nil {
		return nil, fmt.Errorf("list agent keys: %w", notFound(err, "error.agent_not_found", "agent %s not found in account %s", strconv.FormatInt(agentID, 10), accountSlug))
	}
	keys, err := selectAgentKeys(ctx, a.pool, agent)
	if err != nil {
		return nil, fmt.Errorf("list agent keys: %w", err)
	}
	return keys, nil
}

// RevokedKeysShown is how many of an agent's revoked keys its settings
// show, the newest: an agent whose keys are rotated for years has as many
// revoked ones.
const RevokedKeysShown = 5

// ShownAgentKeys returns an agent's unrevoked keys and its newest revoked
// ones (RevokedKeysShown at most), oldest first, and whether it has older
// revoked keys than those.
func (a *Accounts) ShownAgentKeys(ctx context.Context, accountSlug string, agentID int64) ([]AgentKey, bool, error) {
	agent, err := selectAgent(ctx, a.pool, accountSlug, agentID)
	if err != nil {
		return nil, false, fmt.Errorf("list agent keys: %w", notFound(err, "error.agent_not_found", "agent %s not found in account %s", strconv.FormatInt(agentID, 10), accountSlug))
	}
	keys, more, err := selectShownKeys(ctx, a.pool, agent, RevokedKeysShown)
	if err != nil {
		return nil, false, fmt.Errorf("list agent keys: %w", err)
	}
	return keys, more, nil
}

// RetiredAgentsShown is how many of an account's retired agents its
// settings list, the newest: an account that rotates agents for years
// has as many retired ones.
const RetiredAgentsShown = 10

// Why an agent can no longer act.
const (
	RetiredLeft         = "left"         // its human left the account
	RetiredDisconnected = "disconnected" // its OAuth connection was ended
	RetiredRevoked      = "revoked"      // every key of it is revoked
)

// RetiredAgent is an agent that can no longer act: its human left, or it
// has no unrevoked key and no connected OAuth grant.
type RetiredAgent struct {
	Agent
	Why   string    // RetiredLeft, RetiredDisconnected or RetiredRevoked
	Since time.Time // its last key revoked or its disconnection (its creation if neither)
	OAuth bool      // connected with OAuth once: a key does not bring it back (nor any, RetiredLeft)
}

// SettingsAgents returns the account's agents for its settings: those
// that can act (oldest first), the newest
// retired ones (RetiredAgentsShown at most, newest first), and how many
// retired ones are not among those. Three statements (the account, its
// working agents, its retired ones), however many agents it ever had.
func (a *Accounts) SettingsAgents(ctx context.Context, accountSlug string) ([]Agent, []RetiredAgent, int, error) {
	acct, err := selectAccountBySlug(ctx, a.pool, accountSlug)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("settings agents: %w", err)
	}
	working, err := selectWorkingAgents(ctx, a.pool, acct)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("settings agents: %w", err)
	}
	retired, total, err := selectRetiredAgents(ctx, a.pool, acct, RetiredAgentsShown)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("settings agents: %w", err)
	}
	return working, retired, total - len(retired), nil
}

// AuthenticateAgentKey returns the agent whose key this is. Unknown,
// malformed and revoked keys are ErrUnauthorized. While the process
// listens to KeyChanges, keys checked lately are answered from memory.
func (a *Accounts) AuthenticateAgentKey(ctx context.Context, key string) (Agent, error) {
	if len(key) != agentKeyLen || !strings.HasPrefix(key, agentKeyPrefix) {
		return Agent{}, Errorf(ErrUnauthorized, "not a Taasky agent key (they look like %s…)", agentKeyPrefix)
	}
	h := hashAgentKey(key)
	agent, ok, gen := a.keys.get(h)
	if ok {
		return agent, nil
	}
	agent, revoked, err := selectAgentByKeyHash(ctx, a.pool, h[:])
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Agent{}, Errorf(ErrUnauthorized, "unknown agent key")
	case err != nil:
		return Agent{}, fmt.Errorf("authenticate agent key: %w", err)
	case revoked || agent.OwnerUserID == 0:
		return Agent{}, Errorf(ErrUnauthorized, "this agent key was revoked; ask the account's owner for a new one")
	}
	a.keys.put(h, agent, gen)
	return agent, nil
}

func issueKey(ctx context.Context, q querier, agent Agent) (NewAgentKey, error) {
	if agent.OwnerUserID == 0 {
		return NewAgentKey{}, refuse(ErrConflict, "error.agent_human_left", "agent: %s's human left the account, so it can have no new key; create a new agent", agent.Name)
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // never fails
	key := agentKeyPrefix + base64.RawURLEncoding.EncodeToString(secret)
	h := hashAgentKey(key)
	stored, err := insertAgentKey(ctx, q, agent, h[:], key[:agentKeyShowLen], actorOf(ctx))
	if err != nil {
		return NewAgentKey{}, err
	}
	return NewAgentKey{AgentKey: stored, Key: key}, nil
}

func hashAgentKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }
