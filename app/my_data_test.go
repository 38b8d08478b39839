package app_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

var myDataSchema = json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)

// TestMemberData: a member's "Download my data" holds their profile,
// memberships, notification settings, push devices (the push service's
// origin, never the endpoint's path or keys), delivery log, the room they
// answer for with their decision, and the assistant they connected with
// OAuth (its scopes, never a token); their side's own limits, never the
// other side's. Another member's file (the account's owner) holds none of
// it.
func TestMemberData(t *testing.T) {
	tb, ann, _, mo, oz := lifeTeam(t)
	if err := tb.accounts.SetUserTimeZone(tb.ctx, mo.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
	if err != nil {
		t.Fatal(err)
	}
	ozAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, oz.ID), "ozone", "Oz's agent", oz.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, moAgent, app.OpenInput{Schema: myDataSchema, Title: "Fee talk",
		Limits: json.RawMessage(`{"fee":{"max":{"amount":"876.54","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	join, err := tb.rooms.Join(tb.ctx, ozAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: myDataSchema,
		Limits: json.RawMessage(`{"fee":{"min":{"amount":"19.37","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Propose(tb.ctx, moAgent, open.RoomToken, app.MoveInput{Verdict: "offer",
		Subject: json.RawMessage(`{"fee":{"amount":"600.00","currency":"EUR"}}`)}); err != nil {
		t.Fatal(err)
	}
	v, err := tb.rooms.Propose(tb.ctx, ozAgent, join.RoomToken, app.MoveInput{Verdict: "counter",
		Subject: json.RawMessage(`{"fee":{"amount":"500.00","currency":"EUR"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := tb.rooms.RequestConfirmation(tb.ctx, moAgent, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.DecideAsOwner(tb.ctx, mo.ID, v.RoomID, cv.ID, hash, true); err != nil {
		t.Fatal(err)
	}
	pushKey, pushAuth := strings.Repeat("BPk", 29), "AuthSecret0123456789"
	if _, err := tb.pool.Exec(tb.ctx, `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, device, created_at)
		VALUES ($1, 'https://push.example.test/wpush/v2/capability-9Zq', $2, $3, 'Firefox on Linux', now())`, mo.ID, pushKey, pushAuth); err != nil {
		t.Fatal(err)
	}
	oauth := app.NewOAuth(tb.pool)
	client, err := oauth.SaveClient(tb.ctx, app.OAuthClient{ID: "https://assistant.example/oauth/client.json", Kind: app.OAuthClientMetadataDocument,
		Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
	if err != nil {
		t.Fatal(err)
	}
	grant, err := oauth.Connect(tb.ctx, mo.ID, "alpha", client)
	if err != nil {
		t.Fatal(err)
	}
	tokenSig := "at-sig-7hY2kQ9xZ7vLmN2pR4tW6yB8d"
	if err := oauth.SaveToken(tb.ctx, app.OAuthToken{Signature: tokenSig, Kind: app.OAuthAccess, RequestID: "req-4c1d9e7a6b5c8f3b",
		AccountID: grant.AccountID, AgentID: grant.ID, ClientID: client.ID, Request: []byte(`{"granted_scopes":["negotiate","offline_access"]}`),
		ExpiresAt: time.Now().Add(time.Hour), Active: true}); err != nil {
		t.Fatal(err)
	}

	sessionToken, _, err := tb.accounts.StartSession(tb.ctx, mo.ID, app.SessionDevice{Browser: "Firefox", Platform: "Linux"})
	if err != nil {
		t.Fatal(err)
	}

	md, err := tb.rooms.MemberData(tb.ctx, mo.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(md)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if md.Format != "taasky-my-data" || md.Version != 1 || md.Kind != "member" || md.Profile.Email != "mo@example.test" ||
		md.Profile.TimeZone != "Europe/Paris" || md.Profile.CreatedAt == "" || !md.Profile.EmailVerified {
		t.Fatalf("the file's head and profile:\n%s", s)
	}
	if len(md.Memberships) != 1 || md.Memberships[0].Account != "alpha" || md.Memberships[0].Role != app.MemberRoleMember {
		t.Errorf("memberships: %+v", md.Memberships)
	}
	if md.Notifications != (app.MyNotifyPrefs{EmailRequests: true, EmailNotices: true, PushRequests: true, PushNotices: true}) {
		t.Errorf("notification settings: %+v", md.Notifications)
	}
	if len(md.PushDevices) != 1 || md.PushDevices[0].Service != "https://push.example.test" || md.PushDevices[0].Device != "Firefox on Linux" {
		t.Errorf("push devices: %+v", md.PushDevices)
	}
	if len(md.Sessions) != 1 || md.Sessions[0] != (app.MySession{Browser: "Firefox", Platform: "Linux",
		CreatedAt: md.Sessions[0].CreatedAt, LastSeenAt: md.Sessions[0].CreatedAt}) || md.Sessions[0].CreatedAt == "" {
		t.Errorf("sessions: %+v", md.Sessions)
	}
	if len(md.Deliveries) == 0 || md.Deliveries[0].Topic != "request" || md.Deliveries[0].RoomID != v.RoomID {
		t.Errorf("delivery log: %+v", md.Deliveries)
	}
	if len(md.Rooms) != 1 || md.Rooms[0].ID != v.RoomID || md.Rooms[0].Account != "alpha" || md.Rooms[0].Side != "a" ||
		md.Rooms[0].Title != "Fee talk" || !strings.Contains(s, `"500.00"`) || !strings.Contains(s, "876.54") {
		t.Fatalf("rooms:\n%s", s)
	}
	if cs := md.Rooms[0].Confirmations; len(cs) != 1 || cs[0].ID != cv.ID || cs[0].Status != "applied" || !cs[0].ByYou ||
		cs[0].SubjectHash != hash || cs[0].DecidedAt == "" || cs[0].Channel != "dashboard" {
		t.Errorf("confirmations: %+v", cs)
	}
	if len(md.OAuthClients) != 1 || md.OAuthClients[0].Name != "Assistant" || md.OAuthClients[0].Host != "assistant.example" ||
		md.OAuthClients[0].Account != "alpha" || strings.Join(md.OAuthClients[0].Scopes, " ") != "negotiate offline_access" {
		t.Errorf("oauth clients: %+v", md.OAuthClients)
	}
	for _, secret := range []string{"19.37", pushKey, pushAuth, "capability-9Zq", tokenSig, "req-4c1d9e7a6b5c8f3b", open.RoomToken, join.RoomToken,
		sessionToken} {
		if strings.Contains(s, secret) {
			t.Errorf("the file holds %q:\n%s", secret, s)
		}
	}

	// The account's owner: their own file, none of mo's.
	annData, err := tb.rooms.MemberData(tb.ctx, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(annData)
	if annData.Profile.Email != "ann@example.test" || len(annData.Rooms) != 0 || len(annData.PushDevices) != 0 || len(annData.OAuthClients) != 0 ||
		strings.Contains(string(raw), "mo@example.test") {
		t.Fatalf("the owner's file:\n%s", raw)
	}
	// The other side's human: their room holds their own limit, not mo's.
	ozData, err := tb.rooms.MemberData(tb.ctx, oz.ID)
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ = json.Marshal(ozData); len(ozData.Rooms) != 1 || !strings.Contains(string(raw), "19.37") || strings.Contains(string(raw), "876.54") {
		t.Fatalf("the other side's file:\n%s", raw)
	}
	if _, err := tb.rooms.MemberData(tb.ctx, 1<<40); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("nobody's data: %v", err)
	}
}
