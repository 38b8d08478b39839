package app_test

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestOAuthConsentHeldToAgentsCap: a consent that would create an agent
// past AGENTS_PER_ACCOUNT_MAX is refused and creates nothing; the same
// person's consent again, to their connected agent, is not a new agent.
func TestOAuthConsentHeldToAgentsCap(t *testing.T) {
	b, alice, bob, oauth, client, _ := bobConnected(t)
	oauth.SetAgentCap(1)
	if _, err := oauth.Connect(b.ctx, bob.ID, "acme", client); err != nil {
		t.Fatalf("the same consent again: %v", err)
	}
	before := b.rows(t)
	_, err := oauth.Connect(b.ctx, alice.ID, "acme", client)
	wantError(t, err, app.ErrConflict, "agents: this account has as many agents as it may have (1, AGENTS_PER_ACCOUNT_MAX); nothing was created.")
	if after := b.rows(t); after["agents"] != before["agents"] {
		t.Errorf("a refused consent: %d agents, had %d", after["agents"], before["agents"])
	}
}

// TestOAuthReconnectHeldToAgentsCap: a disconnected agent no longer counts
// (its place is free), so a consent that connects it again brings back an
// agent that can act: past the cap it is refused and the agent stays
// disconnected, as a key that brings back an agent whose keys were all
// revoked is.
func TestOAuthReconnectHeldToAgentsCap(t *testing.T) {
	b, alice, bob, oauth, client, agent := bobConnected(t)
	oauth.SetAgentCap(1)
	if err := oauth.Disconnect(b.ctx, "acme", agent.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.accounts.CreateAgent(app.AsActor(b.ctx, alice.ID), "acme", "Alice's agent", alice.Email); err != nil {
		t.Fatalf("an agent in the place bob's disconnection freed: %v", err)
	}
	_, err := oauth.Connect(b.ctx, bob.ID, "acme", client)
	wantError(t, err, app.ErrConflict, "agents: this account has as many agents as it may have (1, AGENTS_PER_ACCOUNT_MAX); nothing was created.")
	if _, err := oauth.ConnectedAgent(b.ctx, agent.AccountID, agent.ID); err == nil {
		t.Error("the refused consent connected bob's agent again")
	}
}
