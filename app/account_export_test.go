package app_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

var exportSchema = json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)

// TestExportAccount: an owner's export holds the account's rooms from its
// side (its schema, its limits, the terms) and its audit log, never the
// other side's limits; it is audited; a member and a stranger are refused.
// Neither it nor the audit log holds a key or a token: agents made with a
// key and by an OAuth consent, a key issued and revoked, an OAuth grant's
// tokens and its disconnection leave only prefixes and names.
func TestExportAccount(t *testing.T) {
	tb, ann, ada, mo, oz := lifeTeam(t)
	mine, firstKey, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ann.ID), "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	secondKey, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, ada.ID), "alpha", mine.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RevokeAgentKey(app.AsActor(tb.ctx, ann.ID), "alpha", secondKey.ID); err != nil {
		t.Fatal(err)
	}
	tokens := oauthGrant(t, tb, mo.ID, ann.ID)
	theirs, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, oz.ID), "ozone", "Oz's agent", oz.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, mine, app.OpenInput{Schema: exportSchema, Title: "Fee talk",
		Limits:  json.RawMessage(`{"fee":{"max":{"amount":"876.54","currency":"EUR"}}}`),
		Subject: json.RawMessage(`{"fee":{"amount":"500.00","currency":"EUR"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, theirs, app.JoinInput{InviteCode: open.InviteCode, Schema: exportSchema,
		Limits: json.RawMessage(`{"fee":{"min":{"amount":"19.37","currency":"EUR"}}}`)}); err != nil {
		t.Fatal(err)
	}
	ex, err := tb.rooms.ExportAccount(tb.ctx, ada.ID, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if len(ex.Rooms) != 1 || ex.Rooms[0].Side != "a" || ex.Rooms[0].Title != "Fee talk" || !strings.Contains(s, "876.54") ||
		!strings.Contains(s, `"500.00"`) || !strings.Contains(s, `"label":"Fee"`) || strings.Contains(s, "19.37") {
		t.Fatalf("the export:\n%s", s)
	}
	if !strings.Contains(s, `"action":"account.created"`) || !strings.Contains(s, `"action":"agent.created"`) {
		t.Fatalf("the export's audit log:\n%s", s)
	}
	secrets := append(tokens, firstKey.Key, secondKey.Key)
	for _, k := range []app.NewAgentKey{firstKey, secondKey} {
		h := sha256.Sum256([]byte(k.Key))
		secrets = append(secrets, k.Key[len(k.Prefix):], hex.EncodeToString(h[:]), base64.StdEncoding.EncodeToString(h[:]))
	}
	for _, secret := range secrets {
		if strings.Contains(s, secret) {
			t.Errorf("the export holds the secret %q:\n%s", secret, s)
		}
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	actions := map[app.AuditAction]bool{}
	for _, e := range entries {
		actions[e.Action] = true
		for k, v := range e.Detail {
			for _, secret := range secrets {
				if strings.Contains(v, secret) {
					t.Errorf("audit entry %s: detail %s = %q holds a secret", e.Action, k, v)
				}
			}
		}
	}
	for _, a := range []app.AuditAction{app.AuditAgentCreated, app.AuditKeyIssued, app.AuditKeyRevoked, app.AuditAgentDisconnected} {
		if !actions[a] {
			t.Errorf("no %s entry in the audit log: %+v", a, entries)
		}
	}
	if entries[0].Action != app.AuditAccountExported || entries[0].Actor != "ada@example.test" || entries[0].Detail["rooms"] != "1" {
		t.Fatalf("the export's audit entry: %+v", entries[0])
	}
	// The other side's export holds its own limits only.
	ozEx, err := tb.rooms.ExportAccount(tb.ctx, oz.ID, "ozone")
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ = json.Marshal(ozEx); !strings.Contains(string(raw), "19.37") || strings.Contains(string(raw), "876.54") {
		t.Fatalf("the other side's export:\n%s", raw)
	}
	tb.refused("a member exports", app.ErrUnauthorized, "export: only the account's owners and admins export it",
		func() error { _, err := tb.rooms.ExportAccount(tb.ctx, mo.ID, "alpha"); return err })
	tb.refused("a stranger exports", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error { _, err := tb.rooms.ExportAccount(tb.ctx, oz.ID, "alpha"); return err })
}

// oauthGrant connects an agent of member's by an OAuth consent, stores
// an access and a refresh token of its grant, and has owner disconnect it;
// it returns what a leak of the grant would show: the tokens' signatures
// and requests' ids.
func oauthGrant(t *testing.T, tb *teamBundle, member, owner int64) []string {
	t.Helper()
	oauth := app.NewOAuth(tb.pool)
	client, err := oauth.SaveClient(tb.ctx, app.OAuthClient{ID: "https://assistant.example/oauth/client.json", Kind: app.OAuthClientMetadataDocument,
		Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := oauth.Connect(tb.ctx, member, "alpha", client)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"req-8f3b2c1d9e7a6b5c", "at-sig-3kQ9xZ7vLmN2pR4tW6yB8dF0hJ", "rt-sig-5sU1wX3zA5cE7gI9kM1oQ3uY"}
	for i, kind := range []app.OAuthTokenKind{app.OAuthAccess, app.OAuthRefresh} {
		if err := oauth.SaveToken(tb.ctx, app.OAuthToken{Signature: secrets[i+1], Kind: kind, RequestID: secrets[0],
			AccountID: agent.AccountID, AgentID: agent.ID, ClientID: client.ID, Request: []byte(`{}`),
			ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := oauth.Disconnect(app.AsActor(tb.ctx, owner), "alpha", agent.ID); err != nil {
		t.Fatal(err)
	}
	return secrets
}
