package app

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestKeyCacheAcrossProcesses: two processes (two Accounts, each with its
// own listener) on one database. Keys they checked are answered from
// memory; a revocation is refused at once by the process that made it and
// by the other as soon as the notification reaches it, however the key was
// revoked; a process that cannot hear keeps nothing.
func TestKeyCacheAcrossProcesses(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	var procs [2]*Accounts
	var stop [2]context.CancelFunc
	for i := range procs {
		procs[i] = NewAccounts(pool)
		lctx, cancel := context.WithCancel(ctx)
		stop[i] = cancel
		done := make(chan struct{})
		go func() { defer close(done); Listen(lctx, pool.Config().ConnConfig.Copy(), log, procs[i].KeyChanges()) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	within := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("after 10 s: %s", what)
			}
		}
	}
	for _, p := range procs {
		within("process listens", p.keys.listening.Load)
	}
	a0 := procs[0]
	if _, err := a0.CreateAccount(ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	agent, k1, err := a0.CreateAgent(ctx, "acme", "agent", "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	k2, err := a0.IssueAgentKey(ctx, "acme", agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	k3, err := a0.IssueAgentKey(ctx, "acme", agent.ID)
	if err != nil {
		t.Fatal(err)
	}
	valid := func(p *Accounts, key string) bool {
		_, err := p.AuthenticateAgentKey(ctx, key)
		if err != nil && ErrorCodeOf(err) != ErrUnauthorized {
			t.Fatal(err)
		}
		return err == nil
	}
	kept := func(p *Accounts, key string) bool {
		_, ok := p.keys.agents.Get(sha256.Sum256([]byte(key)))
		return ok
	}
	for _, p := range procs {
		for _, k := range []string{k1.Key, k2.Key, k3.Key} {
			if !valid(p, k) || !kept(p, k) {
				t.Fatal("a valid key was refused, or not kept once checked")
			}
		}
	}

	// Revoked by the service in process 0: refused there at once, and in
	// process 1 once it hears of it.
	if err := a0.RevokeAgentKey(ctx, "acme", k1.ID); err != nil {
		t.Fatal(err)
	}
	if valid(a0, k1.Key) {
		t.Fatal("the process that revoked a key still accepts it")
	}
	within("process 1 refuses the revoked key", func() bool { return !valid(procs[1], k1.Key) })

	// Revoked by an operator's SQL: both processes hear of it.
	if _, err := pool.Exec(ctx, `UPDATE agent_keys SET revoked_at = now() WHERE id = $1`, k2.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		within("an operator's revocation reaches every process", func() bool { return !valid(p, k2.Key) })
	}
	if !valid(procs[1], k3.Key) || !kept(procs[1], k3.Key) {
		t.Fatal("revoking one key dropped another")
	}
	// A change to the agent's account forgets every key.
	if _, err := pool.Exec(ctx, `UPDATE accounts SET name = 'Acme Ltd' WHERE slug = 'acme'`); err != nil {
		t.Fatal(err)
	}
	within("an account's change forgets its keys", func() bool { return !kept(procs[1], k3.Key) })

	// Process 1 stops hearing: it keeps nothing, and sees a revocation at once.
	stop[1]()
	within("process 1 stops listening", func() bool { return !procs[1].keys.listening.Load() })
	if !valid(procs[1], k3.Key) || kept(procs[1], k3.Key) {
		t.Fatal("a process that cannot hear revocations kept a key")
	}
	if _, err := pool.Exec(ctx, `UPDATE agent_keys SET revoked_at = now() WHERE id = $1`, k3.ID); err != nil {
		t.Fatal(err)
	}
	if valid(procs[1], k3.Key) {
		t.Fatal("a process that cannot hear revocations accepted a revoked key")
	}
}

// TestKeyCheckedDuringANotificationIsNotKept: the database's answer for a
// key, read before a notification arrived, is not kept after it; and no
// key is kept past keyMaxAge.
func TestKeyCheckedDuringANotificationIsNotKept(t *testing.T) {
	c := newKeyCache()
	c.heard(true)
	h := sha256.Sum256([]byte("k"))
	_, _, gen := c.get(h)
	c.forget("") // a notification arrives while the database is asked
	c.put(h, Agent{ID: 1}, gen)
	if _, ok, _ := c.get(h); ok {
		t.Fatal("an answer older than a notification was kept")
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	_, _, gen = c.get(h)
	c.put(h, Agent{ID: 1}, gen)
	if a, ok, _ := c.get(h); !ok || a.ID != 1 {
		t.Fatal("an answer with no notification since was not kept")
	}
	// Whatever the listener hears or misses, a kept key is asked again
	// after keyMaxAge.
	now = now.Add(keyMaxAge + time.Second)
	if _, ok, _ := c.get(h); ok {
		t.Fatal("a key kept longer than keyMaxAge was used")
	}
}
