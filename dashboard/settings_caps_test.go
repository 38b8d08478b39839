package dashboard

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestSettingsCaps: at the account's cap of agents, or an agent's cap of
// keys, the settings form says so (409, the field and the rule) and
// creates nothing.
func TestSettingsCaps(t *testing.T) {
	t.Parallel()
	b := setup(t)
	agents, err := b.accounts.ListAgents(b.ctx, "alpha")
	if err != nil || len(agents) == 0 {
		t.Fatal(agents, err)
	}
	b.accounts.SetCaps(app.Caps{AgentsPerAccount: len(agents), KeysPerAgent: 1})
	alice := b.client(&b.alice)
	alice.get("/settings")
	st, _, body := alice.post("/settings/agents", url.Values{"account": {"alpha"}, "name": {"One too many"}})
	if want := "agents: this account has as many agents as it may have (" + formatID(int64(len(agents))) + ", AGENTS_PER_ACCOUNT_MAX); nothing was created."; st != http.StatusConflict || !strings.Contains(body, want) {
		t.Fatalf("past the agents' cap: %d, want %q in %s", st, want, body)
	}
	if after, _ := b.accounts.ListAgents(b.ctx, "alpha"); len(after) != len(agents) {
		t.Errorf("%d agents after a refusal, had %d", len(after), len(agents))
	}
	var mine app.Agent
	for _, g := range agents {
		if g.OwnerUserID == b.alice.ID {
			mine = g
		}
	}
	keys, _ := b.accounts.ListAgentKeys(b.ctx, "alpha", mine.ID)
	st, _, body = alice.post("/settings/agents/"+formatID(mine.ID)+"/keys", url.Values{"account": {"alpha"}})
	if want := "(1, KEYS_PER_AGENT_MAX); nothing was issued. Revoke one first"; st != http.StatusConflict || !strings.Contains(body, want) {
		t.Fatalf("past the keys' cap: %d, want %q in %s", st, want, body)
	}
	if after, _ := b.accounts.ListAgentKeys(b.ctx, "alpha", mine.ID); len(after) != len(keys) {
		t.Errorf("%d keys after a refusal, had %d", len(after), len(keys))
	}
}
