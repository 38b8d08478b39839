package app_test

import (
	"crypto/sha256"
	"regexp"
	"testing"

	"github.com/taasky/taasky/app"
)

var keyFormat = regexp.MustCompile(`^tsk_[A-Za-z0-9_-]{43}$`)

func TestAgentsAndKeys(t *testing.T) {
	b := setup(t)
	acme, err := b.accounts.CreateAccount(b.ctx, "acme", "Acme", "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.CreateAccount(b.ctx, "other", "Other", "bob@example.test"); err != nil {
		t.Fatal(err)
	}

	agent, key, err := b.accounts.CreateAgent(b.ctx, "acme", "Alice's agent", "Alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if agent.AccountID != acme.ID || agent.AccountSlug != "acme" || agent.Name != "Alice's agent" || agent.OwnerEmail != "alice@example.test" {
		t.Errorf("agent = %+v", agent)
	}
	if !keyFormat.MatchString(key.Key) || key.Prefix != key.Key[:12] || key.AgentID != agent.ID {
		t.Errorf("key = %+v", key)
	}

	// Only the SHA-256 of the key is stored.
	var stored []byte
	if err := b.pool.QueryRow(b.ctx, "SELECT key_hash FROM agent_keys WHERE id = $1", key.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(key.Key)); string(stored) != string(sum[:]) {
		t.Error("stored key_hash is not the key's SHA-256")
	}

	got, err := b.accounts.AuthenticateAgentKey(b.ctx, key.Key)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != agent.ID || got.AccountID != acme.ID || got.AccountSlug != "acme" || got.OwnerUserID != agent.OwnerUserID {
		t.Errorf("authenticated %+v, want %+v", got, agent)
	}

	second, err := b.accounts.IssueAgentKey(b.ctx, "acme", agent.ID)
	if err != nil || second.Key == key.Key {
		t.Fatalf("second key %+v, %v", second, err)
	}
	if err := b.accounts.RevokeAgentKey(b.ctx, "acme", key.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.RevokeAgentKey(b.ctx, "acme", key.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	_, err = b.accounts.AuthenticateAgentKey(b.ctx, key.Key)
	wantError(t, err, app.ErrUnauthorized, "this agent key was revoked")
	if _, err := b.accounts.AuthenticateAgentKey(b.ctx, second.Key); err != nil {
		t.Errorf("the other key stopped working: %v", err)
	}
	keys, err := b.accounts.ListAgentKeys(b.ctx, "acme", agent.ID)
	if err != nil || len(keys) != 2 || keys[0].RevokedAt == nil || keys[1].RevokedAt != nil {
		t.Errorf("keys = %+v, %v", keys, err)
	}

	// Another account sees none of it.
	wantError(t, b.accounts.RevokeAgentKey(b.ctx, "other", second.ID), app.ErrNotFound, "key")
	_, err = b.accounts.IssueAgentKey(b.ctx, "other", agent.ID)
	wantError(t, err, app.ErrNotFound, "agent")
	_, err = b.accounts.ListAgentKeys(b.ctx, "other", agent.ID)
	wantError(t, err, app.ErrNotFound, "agent")
	if agents, err := b.accounts.ListAgents(b.ctx, "other"); err != nil || len(agents) != 0 {
		t.Errorf("other's agents = %+v, %v", agents, err)
	}
	agents, err := b.accounts.ListAgents(b.ctx, "acme")
	if err != nil || len(agents) != 1 || agents[0] != agent {
		t.Errorf("agents = %+v, %v; want [%+v]", agents, err, agent)
	}
}

func TestCreateAgentRefusals(t *testing.T) {
	b := setup(t)
	for _, c := range [][3]string{{"acme", "Acme", "alice@example.test"}, {"other", "Other", "bob@example.test"}} {
		if _, err := b.accounts.CreateAccount(b.ctx, c[0], c[1], c[2]); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.accounts.CreateAgent(b.ctx, "acme", "Helper", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	before := b.rows(t)
	tests := []struct {
		name, slug, agentName, email string
		code                         app.ErrorCode
		msg                          string
	}{
		{"not a member", "acme", "Bob's", "bob@example.test", app.ErrInvalid, "owner email: bob@example.test is not a member of account acme"},
		{"unknown user", "acme", "X", "nobody@example.test", app.ErrInvalid, "owner email: nobody@example.test is not a member of account acme"},
		{"unknown account", "nope", "X", "alice@example.test", app.ErrNotFound, "account not found: nope"},
		{"name taken", "acme", "Helper", "alice@example.test", app.ErrConflict, "agent name already taken in account acme: Helper"},
		{"name empty", "acme", "", "alice@example.test", app.ErrInvalid, "agent name: must be 1–80 characters"},
		{"name reversed", "acme", "\u202etnega", "alice@example.test", app.ErrInvalid, "agent name: readable text only"},
		{"name invisible", "acme", "Help\u200ber", "alice@example.test", app.ErrInvalid, "agent name: readable text only"},
		{"bad email", "acme", "X", "alice@", app.ErrInvalid, `owner email: must be an email address like name@example.com (got "alice@")`},
	}
	for _, tt := range tests {
		_, _, err := b.accounts.CreateAgent(b.ctx, tt.slug, tt.agentName, tt.email)
		t.Run(tt.name, func(t *testing.T) { wantError(t, err, tt.code, tt.msg) })
	}
	if after := b.rows(t); !equalCounts(before, after) {
		t.Errorf("refused calls changed the database: %v → %v", before, after)
	}
}

func TestAuthenticateAgentKeyRefusals(t *testing.T) {
	b := setup(t)
	for name, key := range map[string]string{
		"empty":     "",
		"no prefix": "abcd_0123456789012345678901234567890123456789012",
		"short":     "tsk_abc",
		"unknown":   "tsk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	} {
		_, err := b.accounts.AuthenticateAgentKey(b.ctx, key)
		if app.ErrorCodeOf(err) != app.ErrUnauthorized {
			t.Errorf("%s: %v, want unauthorized", name, err)
		}
	}
}
