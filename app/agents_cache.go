package app

import (
	"encoding/hex"
	"sync/atomic"

	"github.com/taasky/taasky/internal/gencache"
)

// AgentKeyChannel is the PostgreSQL channel that says what an agent key
// authenticates may have changed (migration 00009's triggers): the key's
// SHA-256 in hex, or ” for every key.
const AgentKeyChannel = "taasky_agent_key"

// keyCache keeps the agents of the keys checked lately, by key hash, so
// that a call costs no statement to authenticate. It keeps them only while
// the process listens on AgentKeyChannel (Accounts.KeyChanges): every
// process forgets a revoked key when its revocation commits, and forgets
// everything while it cannot hear. A key checked while a notification
// arrived is not kept, so a check that read a key just before its
// revocation cannot outlive the notification.
type keyCache struct {
	listening atomic.Bool
	gen       atomic.Uint64 // counts notifications and (dis)connections
	agents    *gencache.Cache[[32]byte, Agent]
}

// keysKept is how many keys a generation of the cache holds.
const keysKept = 10_000

func newKeyCache() *keyCache {
	return &keyCache{agents: gencache.New[[32]byte, Agent](keysKept)}
}

// get returns the agent of a key hash the cache holds; gen is to pass to
// put after the database was asked instead.
func (c *keyCache) get(h [32]byte) (agent Agent, ok bool, gen uint64) {
	gen = c.gen.Load()
	if !c.listening.Load() {
		return Agent{}, false, gen
	}
	agent, ok = c.agents.Get(h)
	return agent, ok, gen
}

// put keeps a key's agent, unless anything was heard since gen.
func (c *keyCache) put(h [32]byte, agent Agent, gen uint64) {
	c.agents.Locked(func(tx gencache.Tx[[32]byte, Agent]) {
		if c.listening.Load() && c.gen.Load() == gen {
			tx.Put(h, agent)
		}
	})
}

func (c *keyCache) forget(payload string) {
	c.gen.Add(1)
	var h [32]byte
	if n, err := hex.Decode(h[:], []byte(payload)); err == nil && n == len(h) {
		c.agents.Delete(h)
		return
	}
	c.agents.Clear()
}

func (c *keyCache) heard(listening bool) {
	c.gen.Add(1)
	if !listening {
		c.listening.Store(false)
	}
	c.agents.Clear()
	if listening {
		c.listening.Store(true)
	}
}

// KeyChanges is the Channel that keeps this process's agent keys fresh:
// listen to it (Listen) and the keys checked are kept; without it every
// call's key is checked in the database.
func (a *Accounts) KeyChanges() Channel {
	return Channel{Name: AgentKeyChannel, Notified: a.keys.forget, Heard: a.keys.heard}
}
