package app_test

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestOldNamesAreShownSafely: an agent and a client stored before the
// stricter name rule keep their names in the database, but every read
// (Settings, the consent screen, the audit log, a notification, the MCP
// door) shows them with what would turn or hide the words around them as
// U+FFFD; an agent named after such a client keeps the rule. A name that keeps it is shown as it is.
func TestOldNamesAreShownSafely(t *testing.T) {
	b, _, bob, oauth, _, agent := bobConnected(t)
	if _, err := b.pool.Exec(b.ctx, `UPDATE agents SET name = $1 WHERE id = $2`, "Pay\u202eevil\u2066x", agent.ID); err != nil {
		t.Fatal(err)
	}
	shownOK := func(what, name string) {
		t.Helper()
		if !negotiation.ReadableLine(name) || negotiation.Deceptive(name) != "" || utf8.RuneCountInString(name) > 80 {
			t.Errorf("%s is shown as %q, which breaks the name rule", what, name)
		}
	}
	agents, err := b.accounts.ListAgents(b.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range agents {
		shownOK("an agent stored with a direction override", g.Name)
		if g.ID == agent.ID && g.Name != "Pay\uFFFDevil\uFFFDx" {
			t.Errorf("the agent is shown as %q, want its overrides as U+FFFD", g.Name)
		}
	}
	var stored string
	if err := b.pool.QueryRow(b.ctx, `SELECT name FROM agents WHERE id = $1`, agent.ID).Scan(&stored); err != nil || stored != "Pay\u202eevil\u2066x" {
		t.Errorf("the stored name was rewritten: %q %v", stored, err)
	}

	// Clients registered before the rule.
	for i, name := range []string{"Cl\u200baude\u202e", "Bot\u2028Taasky", "Tab\tbot"} {
		id := fmt.Sprintf("tsc_old_%d", i)
		if _, err := oauth.SaveClient(b.ctx, app.OAuthClient{ID: id, Kind: app.OAuthClientRegistered, Name: name,
			RedirectURIs: []string{"http://127.0.0.1/cb"}}); err != nil {
			t.Fatal(err)
		}
		c, err := oauth.Client(b.ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		shownOK("a client stored as "+name, c.Name)
		g, err := oauth.Connect(b.ctx, bob.ID, "acme", c)
		if err != nil {
			t.Fatal(err)
		}
		shownOK("an agent named after a client stored as "+name, g.Name)
		if err := b.pool.QueryRow(b.ctx, `SELECT name FROM agents WHERE id = $1`, g.ID).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		shownOK("the stored name of an agent named after a client stored as "+name, stored)
	}
	cs, err := oauth.Connections(b.ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		shownOK("a connection's client", c.ClientName)
	}
	if c, err := oauth.Client(b.ctx, "tsc_old_0"); err != nil || c.Name != "Cl\uFFFDaude\uFFFD" {
		t.Errorf("a client stored as Cl\\u200baude\\u202e is shown as %q (%v)", c.Name, err)
	}

	// A name within the rule is shown as it is (an emoji's joiner too).
	fine := "👩\u200d💻 Ada’s agent (ada@example.test)"
	if _, err := b.pool.Exec(b.ctx, `UPDATE agents SET name = $1 WHERE id = $2`, fine, agent.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := oauth.ConnectedAgent(b.ctx, agent.AccountID, agent.ID); err != nil || got.Name != fine {
		t.Errorf("a name within the rule is shown as %q (%v), want it as stored", got.Name, err)
	}
}
