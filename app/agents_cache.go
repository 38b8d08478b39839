package app

import (
	"encoding/hex"
	"sync/atomic"
	"time"

	"github.com/taasky/taasky/internal/gencache"
)

// AgentKeyChannel is the PostgreSQL channel that says what an agent key
// authenticates may have changed (migration 00009's triggers): the key's
// SHA-256 in hex, or ” for every key.
const AgentKeyChannel = "taasky_agent_key"

// keyCache keeps the agents of the keys checked lately, by key hash, so
// that a call costs no statement to authenticate. It keeps them only while
// the process listens on AgentKeyChannel (Accounts.KeyChanges) and its
// listener's probes come back: every process forgets a revoked key when
// its revocation commits, and forgets everything while it cannot hear. A
// key checked while a notification arrived is not kept, so a check that
// read a key just before its revocation cannot outlive the notification;
// and no entry is used past keyMaxAge, whatever happened.
type keyCache struct {
	listening atomic.Bool
	gen       atomic.Uint64 // counts notifications and (dis)connections
	agents    *gencache.Cache[[32]byte, keptAgent]
	now       func() time.Time
}

type keptAgent struct {
	Agent
	at time.Time
}

const (
	// keysKept is how many keys a generation of the cache holds.
	keysKept = 10_000
	// keyMaxAge bounds how long a kept key is used without the database.
	keyMaxAge = time.Minute
)

func newKeyCache() *keyCache {
	return &keyCache{agents: gencache.New[[32]byte, keptAgent](keysKept), now: time.Now}
}

// get returns the agent of a key hash the cache holds; gen is to pass to
// put after the database was asked instead.
func (c *keyCache) get(h [32]byte) (agent Agent, ok bool, gen uint64) {
	gen = c.gen.Load()
	if !c.listening.Load() {
		return Agent{}, false, gen
	}
	k, ok := c.agents.Get(h)
	if !ok || c.now().Sub(k.at) > keyMaxAge {
		return Agent{}, false, gen
	}
	return k.Agent, true, gen
}

// put keeps a key's agent, unless anything was heard since gen.
func (c *keyCache) put(h [32]byte, agent Agent, gen uint64) {
	at := c.now()
	c.agents.Locked(func(tx gencache.Tx[[32]byte, keptAgent]) {
		if c.listening.Load() && c.gen.Load() == gen {
			tx.Put(h, keptAgent{agent, at})
		}
	})
}

// forget is a notification's: a key's hash in hex, or anything else for
// every key.
func (c *keyCache) forget(payload string) {
	var h [32]byte
	if n, err := hex.Decode(h[:], []byte(payload)); err == nil && n == len(h) {
		c.forgetHash(h[:])
		return
	}
	c.gen.Add(1)
	c.agents.Clear()
}

func (c *keyCache) forgetHash(h []byte) {
	c.gen.Add(1)
	if len(h) == 32 {
		c.agents.Delete([32]byte(h))
	} else {
		c.agents.Clear()
	}
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
