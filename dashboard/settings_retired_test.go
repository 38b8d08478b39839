package dashboard

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/oauthserver"
)

// TestSettingsRetiredAgentsCompact: agents that can no longer act (every
// key revoked, disconnected from OAuth, their human gone) are listed
// after the working ones, compactly (name, why, when; no keys), the
// newest app.RetiredAgentsShown of them, saying how many more there are.
// They were listed in full like working agents, with their keys, each
// read with statements of its own, and the page grew with every agent
// ever retired. An owner can still give a retired agent a new key, which
// brings it back among the working ones.
func TestSettingsRetiredAgentsCompact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	state := app.NewOAuth(b.pool)
	srv, err := oauthserver.New(oauthserver.Config{BaseURL: b.base, Secret: make([]byte, 32), State: state, Accounts: b.accounts})
	if err != nil {
		t.Fatal(err)
	}
	b.dash.oauth = struct { // as cmd/taasky joins them
		*oauthserver.Server
		*app.OAuth
	}{srv, state}
	ctx := app.AsActor(b.ctx, b.alice.ID)

	// Rotated bots: each one's only key revoked, oldest first.
	const retired = app.RetiredAgentsShown + 3
	var bots []app.Agent
	for i := range retired {
		g, k, err := b.accounts.CreateAgent(ctx, "alpha", "Old bot "+strconv.Itoa(i), b.alice.Email)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.accounts.RevokeAgentKey(ctx, "alpha", k.ID); err != nil {
			t.Fatal(err)
		}
		bots = append(bots, g)
	}
	// An assistant connected with OAuth, then disconnected: the newest retired.
	client, err := state.SaveClient(b.ctx, app.OAuthClient{ID: "tsc_retired", Kind: app.OAuthClientRegistered, Name: "Gone assistant",
		RedirectURIs: []string{"http://127.0.0.1:9999/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := state.Connect(b.ctx, b.alice.ID, "alpha", client)
	if err != nil {
		t.Fatal(err)
	}
	if err := state.Disconnect(ctx, "alpha", gone.ID); err != nil {
		t.Fatal(err)
	}

	alice := b.client(&b.alice)
	st, _, body := alice.get("/settings")
	if st != http.StatusOK {
		t.Fatalf("settings: %d", st)
	}
	if !strings.Contains(body, `data-agent="`+html.EscapeString(b.alpha.Name)+`"`) {
		t.Fatalf("the working agent is not listed as before:\n%s", body)
	}
	if strings.Contains(body, `data-agent="Old bot`) || strings.Contains(body, `data-agent="`+gone.Name+`"`) {
		t.Fatalf("retired agents are listed like working ones, with their keys:\n%s", body)
	}
	_, list, ok := strings.Cut(body, "data-retired-agents")
	if !ok || strings.Index(body, `data-agent="`+html.EscapeString(b.alpha.Name)+`"`) > strings.Index(body, "data-retired-agents") {
		t.Fatalf("no list of retired agents after the working ones:\n%s", body)
	}
	list, _, _ = strings.Cut(list, "</section>")
	if n := strings.Count(list, "data-retired-agent="); n != app.RetiredAgentsShown {
		t.Fatalf("%d retired agents listed, want the newest %d:\n%s", n, app.RetiredAgentsShown, list)
	}
	more := strconv.Itoa(retired + 1 - app.RetiredAgentsShown)
	if !strings.Contains(list, "Disconnected from OAuth") || !strings.Contains(list, "All its keys are revoked") ||
		!strings.Contains(list, more+" older retired agents are not listed.") || strings.Contains(list, "<code>") ||
		strings.Contains(list, `data-retired-agent="Old bot 0"`) || !strings.Contains(list, `data-retired-agent="`+gone.Name+`"`) {
		t.Fatalf("the retired list (want why, when, %s more, no keys, the newest only):\n%s", more, list)
	}
	if strings.Index(list, `data-retired-agent="`+gone.Name+`"`) > strings.Index(list, `data-retired-agent="Old bot `+strconv.Itoa(retired-1)+`"`) {
		t.Errorf("the retired agents are not newest first:\n%s", list)
	}
	if strings.Contains(list, "/settings/agents/"+strconv.FormatInt(gone.ID, 10)+"/keys") {
		t.Errorf("an OAuth agent is offered a key:\n%s", list)
	}

	// Alice gives the newest rotated bot a key: it works again, and is
	// listed with its keys among the working agents.
	last := bots[len(bots)-1]
	action := "/settings/agents/" + strconv.FormatInt(last.ID, 10) + "/keys"
	if !strings.Contains(list, `action="`+action+`"`) {
		t.Fatalf("no way to give a retired agent a new key:\n%s", list)
	}
	if st, _, _ := alice.post(action, url.Values{"account": {"alpha"}}); st != http.StatusOK && st != http.StatusSeeOther {
		t.Fatalf("new key: %d", st)
	}
	if _, _, body := alice.get("/settings"); !strings.Contains(body, `data-agent="`+last.Name+`"`) || strings.Contains(body, `data-retired-agent="`+last.Name+`"`) {
		t.Errorf("a retired agent given a key is not working again:\n%s", body)
	}

	// A member leaves: their agent is retired, saying so, in the reader's language.
	mo, _, _, _ := b.moJoinsForBeta(t)
	if err := b.accounts.RemoveMember(b.ctx, b.bob.ID, "beta", mo.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, "de"); err != nil {
		t.Fatal(err)
	}
	_, _, body = b.client(&b.bob).get("/settings")
	_, list, _ = strings.Cut(body, "data-retired-agents")
	if !strings.Contains(list, `data-retired-agent="Mo&#39;s agent"`) || !strings.Contains(list, "Sein Mensch hat das Konto verlassen") {
		t.Errorf("the agent of a member who left:\n%s", body)
	}
	if strings.Contains(list, "/keys") {
		t.Errorf("the agent of a member who left is offered a key (it can have none):\n%s", list)
	}
}
