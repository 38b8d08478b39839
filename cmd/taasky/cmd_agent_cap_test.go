package main

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestAgentCreateCap: `taasky agent create` is held to
// AGENTS_PER_ACCOUNT_MAX: past it, one line naming agents and the rule,
// and no agent created.
func TestAgentCreateCap(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "https://taasky.example.com", "AGENTS_PER_ACCOUNT_MAX": "1"}
	if _, _, err := runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, e, "agent", "create", "--account", "acme", "--name", "One", "--owner-email", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	_, _, err := runCmd(t, e, "agent", "create", "--account", "acme", "--name", "Two", "--owner-email", "alice@example.test")
	const want = "create agent: agents: this account has as many agents as it may have (1, AGENTS_PER_ACCOUNT_MAX); nothing was created. " +
		"Revoke every key of one it no longer uses, or disconnect it, first"
	if err == nil || err.Error() != want {
		t.Fatalf("past the cap: %v\nwant %s", err, want)
	}
	pool, err := pgxpool.New(t.Context(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM agents`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d agents (%v), want 1", n, err)
	}
}
