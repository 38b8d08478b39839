package app_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
)

// TestPurgeExpiredOAuthTokens: the hourly purge deletes the codes and
// tokens that expired more than a grace ago, in batches, and keeps every
// other (a rotated refresh token still in its life is what catches its
// reuse).
func TestPurgeExpiredOAuthTokens(t *testing.T) {
	// Tokens are an OAuth agent's (a refresh token is spent only while its
	// agent is connected).
	b, _, _, oauth, _, agent := bobConnected(t)
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	save := func(sig string, kind app.OAuthTokenKind, expires time.Time) {
		t.Helper()
		err := oauth.SaveToken(b.ctx, app.OAuthToken{Signature: sig, Kind: kind, RequestID: "req-" + sig,
			AccountID: agent.AccountID, AgentID: agent.ID, ClientID: "tsc_x", Request: []byte(`{}`), ExpiresAt: expires})
		if err != nil {
			t.Fatal(err)
		}
	}
	const old = jobs.PurgeBatch + 7 // more than one batch
	for i := range old {
		save(fmt.Sprintf("old-%04d", i), app.OAuthAccess, now.Add(-jobs.PurgeGrace-time.Minute))
	}
	save("recent-access", app.OAuthAccess, now.Add(-time.Hour)) // expired, inside the grace
	save("live-refresh", app.OAuthRefresh, now.Add(29*24*time.Hour))
	if _, err := oauth.DeactivateToken(b.ctx, app.OAuthRefresh, "live-refresh"); err != nil { // rotated
		t.Fatal(err)
	}

	w := &jobs.PurgeWorker{Tokens: oauth, Now: func() time.Time { return now }}
	if err := w.Work(context.Background(), &river.Job[jobs.PurgeArgs]{}); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := b.pool.Query(b.ctx, `SELECT signature FROM oauth_tokens ORDER BY signature`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		left = append(left, s)
	}
	if len(left) != 2 || left[0] != "live-refresh" || left[1] != "recent-access" {
		t.Fatalf("left after the purge: %v; want the rotated live refresh token and the access token inside the grace", left)
	}
	if tok, err := oauth.Token(b.ctx, app.OAuthRefresh, "live-refresh"); err != nil || tok.Active {
		t.Errorf("the rotated refresh token: %+v, %v", tok, err)
	}
}

// TestOAuthAgentsAudited: an agent made by a person's OAuth consent, the
// same person's consent again, and its disconnection by an owner are in
// the audit log, each with its actor, the agent and the client by name
// and host; a second disconnection adds nothing.
func TestOAuthAgentsAudited(t *testing.T) {
	b, alice, bob, oauth, client, agent := bobConnected(t)
	if _, err := oauth.Connect(b.ctx, bob.ID, "acme", client); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := oauth.Disconnect(app.AsActor(b.ctx, alice.ID), "acme", agent.ID); err != nil {
			t.Fatal(err)
		}
	}
	entries, _, err := b.accounts.AuditLog(b.ctx, alice.ID, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	detail := map[string]string{"agent": "Assistant", "owner": "bob@example.test", "client": "Assistant", "host": "assistant.example"}
	want := []struct {
		action app.AuditAction
		actor  string
	}{
		{app.AuditAgentDisconnected, "alice@example.test"},
		{app.AuditAgentReconnected, "bob@example.test"},
		{app.AuditAgentCreated, "bob@example.test"},
		{app.AuditMemberAdded, "operator"},
	}
	if len(entries) < len(want) {
		t.Fatalf("the audit log: %+v", entries)
	}
	for i, w := range want {
		e := entries[i]
		if e.Action != w.action || e.Actor != w.actor {
			t.Errorf("entry %d: %s by %s, want %s by %s", i, e.Action, e.Actor, w.action, w.actor)
		}
		if w.action == app.AuditMemberAdded {
			continue
		}
		if !maps.Equal(e.Detail, detail) {
			t.Errorf("entry %d (%s): detail %v, want %v", i, e.Action, e.Detail, detail)
		}
	}
}

// TestRemovedMembersOAuthAgentStops: removing a member ends their OAuth
// agents' grants at once, as it revokes their keys: the tokens are
// deleted, a token issued before is refused, and the removal's audit
// entry counts them. Back in the account, the same consent connects a new
// agent of theirs, not the one left without a human.
func TestRemovedMembersOAuthAgentStops(t *testing.T) {
	b, alice, bob, oauth, client, agent := bobConnected(t)
	if err := oauth.SaveToken(b.ctx, app.OAuthToken{Signature: "access-sig", Kind: app.OAuthAccess, RequestID: "req",
		AccountID: agent.AccountID, AgentID: agent.ID, ClientID: client.ID, Request: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.ConnectedAgent(b.ctx, agent.AccountID, agent.ID); err != nil {
		t.Fatalf("before the removal: %v", err)
	}

	if err := b.accounts.RemoveMember(b.ctx, alice.ID, "acme", bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := oauth.ConnectedAgent(b.ctx, agent.AccountID, agent.ID); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("a token issued before the removal: %v, want it refused", err)
	}
	if _, err := oauth.Token(b.ctx, app.OAuthAccess, "access-sig"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("the token after the removal: %v, want it deleted", err)
	}
	entries, _, err := b.accounts.AuditLog(b.ctx, alice.ID, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Action != app.AuditMemberRemoved || e.Detail["agents_disconnected"] != "1" || e.Detail["email"] != "bob@example.test" {
		t.Errorf("the removal's audit entry: %+v", e)
	}

	if err := b.accounts.AddMemberAsOperator(b.ctx, "acme", "bob@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	again, err := oauth.Connect(b.ctx, bob.ID, "acme", client)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == agent.ID || again.OwnerUserID != bob.ID {
		t.Errorf("connected again after rejoining: %+v, want a new agent of bob's (the old one is %d)", again, agent.ID)
	}
	if got, err := oauth.ConnectedAgent(b.ctx, again.AccountID, again.ID); err != nil || got.ID != again.ID {
		t.Errorf("the new agent: %+v %v", got, err)
	}
	if _, err := oauth.ConnectedAgent(b.ctx, agent.AccountID, agent.ID); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the old agent after the new consent: %v, want it refused", err)
	}
}

// bobConnected is account acme of alice (owner) and bob (member), with an
// assistant bob connected by OAuth consent: its client and agent.
func bobConnected(t *testing.T) (bundle, app.User, app.User, *app.OAuth, app.OAuthClient, app.Agent) {
	t.Helper()
	b := setup(t)
	if _, err := b.accounts.CreateAccount(b.ctx, "acme", "Acme", "alice@example.test"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.AddMemberAsOperator(b.ctx, "acme", "bob@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	alice, err := b.accounts.UserByEmail(b.ctx, "alice@example.test")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := b.accounts.UserByEmail(b.ctx, "bob@example.test")
	if err != nil {
		t.Fatal(err)
	}
	oauth := app.NewOAuth(b.pool)
	client, err := oauth.SaveClient(b.ctx, app.OAuthClient{ID: "https://assistant.example/oauth/client.json", Kind: app.OAuthClientMetadataDocument,
		Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := oauth.Connect(b.ctx, bob.ID, "acme", client)
	if err != nil {
		t.Fatal(err)
	}
	return b, alice, bob, oauth, client, agent
}

// TestUngrantedOAuthClientsExpire: the hourly purge deletes the client
// registrations no person ever granted once older than their period, in
// batches; it keeps a recent one, one granted (even after its agent is
// gone), and one granted today though registered long ago. A consent for
// a client deleted meanwhile is refused as an unknown client, not a fault.
func TestUngrantedOAuthClientsExpire(t *testing.T) {
	b, _, bob, oauth, granted, _ := bobConnected(t)
	now := time.Now()
	register := func(id string, age time.Duration) app.OAuthClient {
		t.Helper()
		c, err := oauth.SaveClient(b.ctx, app.OAuthClient{ID: id, Kind: app.OAuthClientRegistered, Name: "Client " + id,
			RedirectURIs: []string{"https://client.example/cb"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.pool.Exec(b.ctx, `UPDATE oauth_clients SET created_at = $2 WHERE id = $1`, id, now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	const old = 1200 // more than a statement deletes
	if _, err := b.pool.Exec(b.ctx, `INSERT INTO oauth_clients (id, kind, name, redirect_uris, created_at)
		SELECT 'tsc_old_' || i, 'registered', 'Old', '{https://client.example/cb}', $1 FROM generate_series(1, $2) i`,
		now.Add(-8*24*time.Hour), old); err != nil {
		t.Fatal(err)
	}
	register("tsc_recent", 6*24*time.Hour)
	late := register("tsc_late", 30*24*time.Hour)
	if _, err := oauth.Connect(b.ctx, bob.ID, "acme", late); err != nil { // granted today
		t.Fatal(err)
	}
	doomed := register("tsc_doomed", 9*24*time.Hour)
	// Connected by a process of the version before granted_at (a rolling
	// upgrade): kept for its agent, and the purge goes on past it.
	rolling := register("tsc_rolling", 30*24*time.Hour)
	if _, err := oauth.Connect(b.ctx, bob.ID, "acme", rolling); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(b.ctx, `UPDATE oauth_clients SET granted_at = NULL WHERE id = $1`, rolling.ID); err != nil {
		t.Fatal(err)
	}
	// The granted client is old too, and its agent's grant row is gone.
	if _, err := b.pool.Exec(b.ctx, `UPDATE oauth_clients SET created_at = $2 WHERE id = $1`, granted.ID, now.Add(-400*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.pool.Exec(b.ctx, `DELETE FROM oauth_agents WHERE client_id = $1`, granted.ID); err != nil {
		t.Fatal(err)
	}

	w := &jobs.PurgeWorker{Tokens: oauth, Data: app.NewRetention(b.pool, app.RetentionPeriods{OAuthClients: 7 * 24 * time.Hour}),
		Now: func() time.Time { return now }}
	if err := w.Work(context.Background(), &river.Job[jobs.PurgeArgs]{}); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := b.pool.Query(b.ctx, `SELECT id FROM oauth_clients ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		left = append(left, s)
	}
	if want := []string{granted.ID, "tsc_late", "tsc_recent", "tsc_rolling"}; fmt.Sprint(left) != fmt.Sprint(want) {
		t.Fatalf("left after the purge: %v (%d); want %v", left[:min(len(left), 5)], len(left), want)
	}
	if _, err := oauth.Client(b.ctx, "tsc_doomed"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Errorf("a deleted registration: %v; want not found", err)
	}
	if _, err := oauth.Connect(b.ctx, bob.ID, "acme", doomed); app.ErrorCodeOf(err) != app.ErrInvalid {
		t.Errorf("a consent for a deleted registration: %v; want invalid (an unknown client)", err)
	}
}
