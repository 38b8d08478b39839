package app

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// Caps bound the agents and keys one account may hold, against a script or
// a member that loops: past its cap a creation is refused, at every door,
// and nothing is created. 0: no cap. (The open rooms' cap is Rooms':
// RoomsConfig.OpenRoomsPerAccount.)
type Caps struct {
	// AgentsPerAccount is how many agents that can act (an unrevoked key
	// or a connected OAuth grant, and a human) one account may have
	// (AGENTS_PER_ACCOUNT_MAX). Agents are never deleted: one whose keys
	// are all revoked, or which was disconnected, no longer counts.
	AgentsPerAccount int
	// KeysPerAgent is how many unrevoked keys one agent may have
	// (KEYS_PER_AGENT_MAX).
	KeysPerAgent int
}

// SetCaps sets the caps on agents and keys; the zero Caps (NewAccounts'):
// none.
func (a *Accounts) SetCaps(c Caps) { a.caps = c }

// SetAgentCap sets the cap on agents (Caps.AgentsPerAccount) that a
// consent creating an agent is held to.
func (o *OAuth) SetAgentCap(n int) { o.agentCap = n }

// checkAgentCap refuses one more agent that can act in the account past
// the cap, under the account's lock (lockAccountMembers: two creations at
// once count each other). except is an agent not to count (the one a key
// is issued for; 0: none).
func checkAgentCap(ctx context.Context, tx pgx.Tx, accountID, except int64, limit int) error {
	if limit <= 0 {
		return nil
	}
	n, err := countActingAgents(ctx, tx, accountID, except)
	if err != nil || n < limit {
		return err
	}
	return agentsFull(limit)
}

// agentsFull is the refusal of one more agent that can act past the cap.
func agentsFull(limit int) error {
	return refuse(ErrConflict, "cap9_agents", "agents: this account has as many agents as it may have (%d, AGENTS_PER_ACCOUNT_MAX); nothing was created. "+
		"Revoke every key of one it no longer uses, or disconnect it, first", limit)
}

// checkKeyCap refuses another key for agent past the cap, under the
// account's lock (lockAccountMembers).
func checkKeyCap(ctx context.Context, tx pgx.Tx, agent Agent, limit int) error {
	if limit <= 0 {
		return nil
	}
	n, err := countLiveKeys(ctx, tx, agent)
	if err != nil || n < limit {
		return err
	}
	return refuse(ErrConflict, "cap9_keys", "keys: %s has as many keys as an agent may have (%d, KEYS_PER_AGENT_MAX); nothing was issued. Revoke one first", agent.Name, limit)
}

// errOpenRoomsFull is insertRoom's word that the account has its cap of
// open rooms; Open says it as openRoomsFull.
var errOpenRoomsFull = errors.New("the account's open rooms are at their cap")

func (s *Rooms) openRoomsFull() error {
	return refuse(ErrConflict, "cap9_open_rooms", "rooms: this account has as many open rooms as it may have (%d, OPEN_ROOMS_PER_ACCOUNT_MAX); nothing was opened. "+
		"Cancel one it no longer needs, or wait for one to end", s.openCap)
}
