package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestSettingsPages: creating an agent shows its MCP URL and key once;
// the key works and is revoked from the page; nobody manages the agents of
// an account they are not in; the time zone is checked and saved.
func TestSettingsPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	st, _, body := alice.get("/settings")
	if st != 200 || !strings.Contains(body, b.base+"/mcp/alpha") || !strings.Contains(body, "Alpha Studio&#39;s agent") {
		t.Fatalf("settings: %d %s", st, body)
	}
	st, _, body = alice.post("/settings/agents", url.Values{"account": {"alpha"}, "name": {"Calendar bot"}})
	key := regexp.MustCompile(`data-key>(tsk_[A-Za-z0-9_-]+)<`).FindStringSubmatch(body)
	if st != 200 || key == nil || !strings.Contains(body, "The key is shown this once") {
		t.Fatalf("create agent: %d %s", st, body)
	}
	agent, err := b.accounts.AuthenticateAgentKey(b.ctx, key[1])
	if err != nil || agent.Name != "Calendar bot" || agent.OwnerUserID != b.alice.ID {
		t.Fatalf("the new key: %v %+v", err, agent)
	}
	if _, _, body := alice.get("/settings"); strings.Contains(body, key[1]) {
		t.Fatal("the key is shown again")
	}
	if st, _, body := alice.post("/settings/agents", url.Values{"account": {"alpha"}, "name": {"  "}}); st != http.StatusBadRequest || !strings.Contains(body, "agent name: must be 1–80 characters") {
		t.Fatalf("blank name: %d", st)
	}
	if st, _, body := alice.post("/settings/agents", url.Values{"account": {"beta"}, "name": {"x"}}); st != http.StatusNotFound || !strings.Contains(body, "not a member") {
		t.Fatalf("someone else's account: %d", st)
	}
	keys, err := b.accounts.ListAgentKeys(b.ctx, "alpha", agent.ID)
	if err != nil || len(keys) != 1 {
		t.Fatal(err)
	}
	revoke := "/settings/keys/" + formatID(keys[0].ID) + "/revoke"
	bob := b.client(&b.bob)
	bob.get("/settings")
	if st, _, _ := bob.post(revoke, url.Values{"account": {"alpha"}, "agent": {formatID(agent.ID)}}); st != http.StatusNotFound {
		t.Fatalf("bob revokes alice's key: %d", st)
	}
	if st, loc, _ := alice.post(revoke, url.Values{"account": {"alpha"}, "agent": {formatID(agent.ID)}}); st != http.StatusSeeOther || loc != "/settings?done=revoked" {
		t.Fatalf("revoke: %d %q", st, loc)
	}
	if _, err := b.accounts.AuthenticateAgentKey(b.ctx, key[1]); err == nil {
		t.Fatal("the revoked key still works")
	}
	if st, _, body := alice.post("/settings/timezone", url.Values{"time_zone": {"Mars/Olympus"}}); st != http.StatusBadRequest || !strings.Contains(body, "time zone: must be an IANA time zone name") {
		t.Fatalf("bad zone: %d", st)
	}
	if st, loc, _ := alice.post("/settings/timezone", url.Values{"time_zone": {"Europe/Paris"}, "next": {"//evil.example/"}}); st != http.StatusSeeOther || loc != "/" {
		t.Fatalf("zone: %d %q", st, loc)
	}
	if u, _ := b.accounts.UserByID(b.ctx, b.alice.ID); u.TimeZone != "Europe/Paris" {
		t.Fatalf("zone saved: %q", u.TimeZone)
	}
}

// TestBadInputNeverFails500: every malformed address or form is answered
// with a clear error, never "internal error".
func TestBadInputNeverFails500(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	alice.get("/")
	for _, path := range []string{"/rooms/abc", "/rooms/0", "/rooms/99999", "/rooms/99999/events", "/c/", "/c/x",
		"/i/x", "/p/x", "/p/ps_x", "/p/x/events", "/?state=<b>", "/?after=%00", "/rooms/1?side=z",
		"/settings/deliveries?after=1.x", "/settings/deliveries?after=%00", "/unsubscribe/x", "/unsubscribe/un_%00"} {
		if st, _, body := alice.get(path); st >= 500 || strings.Contains(body, "internal error") {
			t.Errorf("GET %s: %d", path, st)
		}
	}
	for _, path := range []string{"/rooms/abc/decide", "/rooms/1/decide", "/c/x", "/i/x", "/p/x",
		"/settings/agents", "/settings/agents/x/keys", "/settings/keys/x/revoke", "/settings/timezone",
		"/settings/notifications", "/settings/push", "/settings/push/remove", "/settings/push/test", "/unsubscribe/x"} {
		if st, _, body := alice.post(path, url.Values{"verdict": {"dance"}, "answer": {"confirm"}}); st >= 500 || strings.Contains(body, "internal error") {
			t.Errorf("POST %s: %d %s", path, st, body)
		}
	}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", "")})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	pat.get("/i/" + open.InviteCode)
	if st, _, body := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"dance"}}); st != http.StatusBadRequest || !strings.Contains(body, "answer: must be approve, counter, reject or cancel") {
		t.Errorf("a bad verdict: %d", st)
	}
	if st, _, body := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {"sha256:00"}}); st != http.StatusConflict || !strings.Contains(body, "subject_hash does not match") {
		t.Errorf("a stale hash: %d", st)
	}
}
