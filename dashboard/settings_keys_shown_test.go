package dashboard

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestSettingsRevokedKeysBounded: an agent's settings list its unrevoked
// keys and only its newest revoked ones, saying older ones are not
// listed: an agent whose key was rotated every day for years listed every
// key it ever had, and the settings page grew with each rotation (100
// agents at the caps already made it 620 kB).
func TestSettingsRevokedKeysBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := app.AsActor(b.ctx, b.alice.ID)
	agent, first, err := b.accounts.CreateAgent(ctx, "alpha", "Rotated bot", b.alice.Email)
	if err != nil {
		t.Fatal(err)
	}
	const rotations = app.RevokedKeysShown + 7
	keys := []app.NewAgentKey{first}
	for range rotations {
		k, err := b.accounts.IssueAgentKey(ctx, "alpha", agent.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.accounts.RevokeAgentKey(ctx, "alpha", keys[len(keys)-1].ID); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	section := func() string {
		t.Helper()
		st, _, body := b.client(&b.alice).get("/settings")
		if st != http.StatusOK {
			t.Fatalf("settings: %d", st)
		}
		_, rest, ok := strings.Cut(body, `data-agent="Rotated bot"`)
		if !ok {
			t.Fatal("the agent is not on the settings page")
		}
		own, _, _ := strings.Cut(rest, `data-agent="`)
		return own
	}
	own := section()
	if n := strings.Count(own, "<del>"); n != app.RevokedKeysShown || !strings.Contains(own, "data-older-keys") ||
		!strings.Contains(own, "Older revoked keys are not listed.") {
		t.Fatalf("the agent lists %d revoked keys (want %d, and that older ones are not listed):\n%s", n, app.RevokedKeysShown, own)
	}
	live := keys[len(keys)-1]
	if !strings.Contains(own, "<code>"+live.Prefix+"…</code>") || !strings.Contains(own, keys[len(keys)-2].Prefix) || strings.Contains(own, first.Prefix) {
		t.Fatalf("the unrevoked key and the newest revoked are listed, the first revoked not:\n%s", own)
	}

	// An agent with no more revoked keys than are shown lists them all,
	// and says nothing of older ones.
	fresh, _, err := b.accounts.CreateAgent(ctx, "alpha", "Fresh bot", b.alice.Email)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.accounts.IssueAgentKey(ctx, "alpha", fresh.ID); err != nil {
		t.Fatal(err)
	}
	all, err := b.accounts.ListAgentKeys(b.ctx, "alpha", fresh.ID)
	if err != nil || len(all) != 2 {
		t.Fatal(err)
	}
	if err := b.accounts.RevokeAgentKey(ctx, "alpha", all[0].ID); err != nil {
		t.Fatal(err)
	}
	st, _, body := b.client(&b.alice).get("/settings")
	_, rest, _ := strings.Cut(body, `data-agent="Fresh bot"`)
	own, _, _ = strings.Cut(rest, `data-agent="`)
	if st != http.StatusOK || strings.Count(own, "<del>") != 1 || strings.Contains(own, "data-older-keys") {
		t.Fatalf("a fresh agent's keys: %d\n%s", st, own)
	}
}
