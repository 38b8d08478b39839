package app_test

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestOAuthConsentHeldToAgentsCap: a consent that would create an agent
// past AGENTS_PER_ACCOUNT_MAX is refused and creates nothing; the same
// person's consent again, to their connected agent, is not a new agent; a
// consent bringing a disconnected agent back past the cap is refused, and
// leaves it disconnected.
func TestOAuthConsentHeldToAgentsCap(t *testing.T) {
	b, alice, bob, oauth, client, bobs := bobConnected(t)
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
	// Bob's agent disconnected makes room for Alice's.
	if err := oauth.Disconnect(app.AsActor(b.ctx, alice.ID), "acme", bobs.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.Connect(b.ctx, alice.ID, "acme", client); err != nil {
		t.Fatalf("alice once bob's agent was disconnected: %v", err)
	}
	_, err = oauth.Connect(b.ctx, bob.ID, "acme", client)
	wantError(t, err, app.ErrConflict, "agents: this account has as many agents as it may have (1, AGENTS_PER_ACCOUNT_MAX)")
	if _, err := oauth.ConnectedAgent(b.ctx, bobs.AccountID, bobs.ID); err == nil {
		t.Error("a refused consent connected bob's agent again")
	}
}
