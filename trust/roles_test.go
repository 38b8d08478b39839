package trust

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// signIn signs a person in through the OIDC issuer, as tenant.browser
// does for an owner, with any address (the user is made at the first
// sign-in, and joins the memberships made for their address).
func (s *stack) signIn(email string) *browser {
	s.t.Helper()
	br := s.signedOut()
	follow := &http.Client{Jar: br.http.Jar, Transport: transport}
	resp, err := follow.Get(s.base + "/login?next=/settings")
	if err != nil {
		s.t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`name="id" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		s.t.Fatalf("the issuer's login page has no id: %s", page)
	}
	resp, err = follow.PostForm(resp.Request.URL.String(), url.Values{"id": {string(m[1])}, "email": {email}})
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/settings" {
		s.t.Fatalf("%s signing in ended at %s (%d)", email, resp.Request.URL, resp.StatusCode)
	}
	br.do("GET", "/settings", nil) // a CSRF token
	return br
}

// teamState is what a page of the team's could change: pageState, the
// memberships and their roles, the invitations, the agents' owners and
// the people's sessions, the audit log.
func (s *stack) teamState() string {
	s.t.Helper()
	var out string
	err := s.pool.QueryRow(s.ctx, `SELECT
		(SELECT coalesce(string_agg(account_id || ':' || user_id || ':' || role, ',' ORDER BY account_id, user_id), '') FROM memberships) || '#' ||
		(SELECT coalesce(string_agg(id || ':' || md5(token_hash::text) || ':' || coalesce(revoked_at::text, '') || coalesce(accepted_at::text, ''), ',' ORDER BY id), '') FROM account_invitations) || '#' ||
		(SELECT coalesce(string_agg(id || ':' || coalesce(owner_user_id, 0), ',' ORDER BY id), '') FROM agents) || '#' ||
		(SELECT coalesce(string_agg(user_id || ':' || id, ',' ORDER BY id), '') FROM user_sessions) || '#' ||
		(SELECT coalesce(string_agg(id || ':' || name, ',' ORDER BY id), '') FROM accounts) || '#' ||
		(SELECT coalesce(string_agg(id || ':' || md5(secrets) || ':' || coalesce(disabled_at::text, ''), ',' ORDER BY id), '') FROM webhook_endpoints) || '#' ||
		(SELECT count(*)::text FROM river_job WHERE kind = 'webhook') || '#' ||
		(SELECT count(*)::text FROM audit_log)`).Scan(&out)
	if err != nil {
		s.t.Fatal(err)
	}
	return s.pageState() + "#" + out
}

// TestRoleMatrix: every dashboard route of an account × owner, admin,
// member (not theirs), the seat's own member, a person of no account, and
// another account's owner. Each either may (a page: 200) or is refused
// (not 200 nor 303), and a refused one reads none of what it may not see
// (the room's title, the side's limit, the confirmation's id) and writes
// nothing (teamState). Every route the dashboard mounts is a row or is
// named, with why, in notAccountRoutes (checkEveryRoute). Then the seven
// MCP tools × each person's agent, on a seat of the seat's member's agent
// (toolMatrix).
func TestRoleMatrix(t *testing.T) {
	s := newStack(t, stackConfig{tenants: 3, dashboard: true, receipts: true, oauth: true})
	alpha, beta, other := s.tenants[0], s.tenants[1], s.tenants[2]
	for _, p := range []struct {
		email string
		role  app.MemberRole
	}{{"adm@example.test", app.MemberRoleAdmin}, {"m1@example.test", app.MemberRoleMember}, {"m2@example.test", app.MemberRoleMember}} {
		if err := s.accounts.AddMemberAsOperator(s.ctx, alpha.slug, p.email, p.role); err != nil {
			t.Fatal(err)
		}
	}
	people := map[string]*browser{"owner": alpha.browser(), "admin": s.signIn("adm@example.test"), "seat's member": s.signIn("m1@example.test"),
		"member": s.signIn("m2@example.test"), "non-member": s.signIn("nobody@example.test"), "other account": other.browser()}
	users := map[string]app.User{}
	for role, email := range map[string]string{"admin": "adm@example.test", "seat's member": "m1@example.test", "member": "m2@example.test"} {
		u, err := s.accounts.UserByEmail(s.ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		users[role] = u
	}

	// m1's agent opens a room with beta and asks m1 to withdraw.
	ag, key, err := s.accounts.CreateAgent(s.ctx, alpha.slug, "m1's agent", "m1@example.test")
	if err != nil {
		t.Fatal(err)
	}
	m1 := &tenant{s: s, slug: alpha.slug, email: "m1@example.test", agent: ag, key: key.Key, keyID: key.ID}
	m1.sess = m1.connect(key.Key)
	const secretTitle, secretLimit = "m1 secret 4d2c", "88231"
	open := m1.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "title": secretTitle,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": secretLimit + ".00", "currency": "EUR"}}}})
	joined := beta.must("negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema})
	tok := open.str("room_token")
	hook, hookSecret, err := s.hooks.CreateWebhook(s.ctx, alpha.user.ID, alpha.slug, "https://93.184.216.34/hooks", []string{"room.opened", "room.joined"})
	if err != nil {
		t.Fatal(err)
	}
	beta.must("negotiation_open", map[string]any{"subject_schema": raceSchema}) // not alpha's: no message
	m1.must("negotiation_open", map[string]any{"subject_schema": raceSchema})   // a message to the endpoint
	_, hookLog, err := s.hooks.WebhookLog(s.ctx, alpha.user.ID, alpha.slug, hook.ID)
	if err != nil || len(hookLog) != 1 {
		t.Fatalf("the endpoint's log: %+v %v", hookLog, err)
	}
	room := m1.roomID(tok)
	cid := m1.must("negotiation_cancel", map[string]any{"room_token": tok}).str("pending_confirmation", "id")
	// m1's agent also holds seat b of R2, which beta opened with terms on
	// the table (m1's turn: every move is open to it), and seat a of R3,
	// agreed (it has a receipt).
	const r2Title, r2Limit, r2Fee = "beta asks 5e81", "99417", 61283
	open2 := beta.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(r2Fee), "title": r2Title})
	code2 := open2.str("invite_code")
	tb2 := m1.must("negotiation_join", map[string]any{"invite_code": code2, "subject_schema": raceSchema,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": r2Limit + ".00", "currency": "EUR"}}}}).str("room_token")
	h2 := tableHash(m1.must("negotiation_read", map[string]any{"room_token": tb2}).out)
	const agreedTitle = "m1 agreed 3c07"
	open3 := m1.must("negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(4410), "title": agreedTitle})
	ta3 := open3.str("room_token")
	tb3 := beta.must("negotiation_join", map[string]any{"invite_code": open3.str("invite_code"), "subject_schema": raceSchema}).str("room_token")
	room3 := m1.roomID(ta3)
	h3 := tableHash(beta.must("negotiation_read", map[string]any{"room_token": tb3}).out)
	cb := beta.must("negotiation_respond", map[string]any{"room_token": tb3, "verdict": "approve", "subject_hash": h3}).str("pending_confirmation", "id")
	if _, err := beta.decide(room3, cb, negotiation.SubjectHash(h3), true); err != nil {
		t.Fatal(err)
	}
	ca := m1.must("negotiation_respond", map[string]any{"room_token": ta3, "verdict": "approve", "subject_hash": h3}).str("pending_confirmation", "id")
	if d, err := s.rooms.DecideAsOwner(s.ctx, users["seat's member"].ID, room3, ca, negotiation.SubjectHash(h3), true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("R3 agreed: %+v %v", d, err)
	}
	// Each member's agent: the owner's is alpha's own; an agent for the
	// admin and for the other member.
	keys := map[string]string{"owner": alpha.key, "seat's member": key.Key}
	for _, who := range []string{"admin", "member"} {
		if _, k, err := s.accounts.CreateAgent(s.ctx, alpha.slug, who+"'s agent", users[who].Email); err != nil {
			t.Fatal(err)
		} else {
			keys[who] = k.Key
		}
	}
	inv, err := s.accounts.Invite(s.ctx, alpha.user.ID, alpha.slug, "newcomer@example.test", app.MemberRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	agentKeys, err := s.accounts.ListAgentKeys(s.ctx, alpha.slug, ag.ID)
	if err != nil {
		t.Fatal(err)
	}

	r, slug := fmt.Sprint(room), alpha.slug
	acct := "/accounts/" + slug
	type route struct {
		method, path string
		form         url.Values
		may          []string // who may: a GET answers 200, a POST is not tried for them here
		sees         []string // who may read the secrets on it
	}
	everyone := []string{"owner", "admin", "seat's member", "member", "non-member", "other account"}
	leads := []string{"owner", "admin", "seat's member"}
	members := []string{"owner", "admin", "seat's member", "member"}
	routes := []route{
		{"GET", "/", nil, everyone, leads},
		{"GET", "/rooms/" + r, nil, leads, leads},
		{"GET", "/rooms/" + r + "?side=a", nil, leads, leads},
		{"GET", "/rooms/" + r + "?side=b", nil, leads, leads},
		{"POST", "/rooms/" + r + "/decide", url.Values{"answer": {"confirm"}, "confirmation_id": {cid}, "side": {"a"}}, []string{"seat's member"}, nil},
		{"POST", "/rooms/" + r + "/decide", url.Values{"answer": {"decline"}, "confirmation_id": {cid}, "side": {"a"}}, []string{"seat's member"}, nil},
		// Only an owner, and only for a seat whose human left: its member is here.
		{"POST", "/rooms/" + r + "/cancel", url.Values{"side": {"a"}}, nil, nil},
		{"POST", "/rooms/" + r + "/cancel", url.Values{"side": {"b"}}, nil, nil},
		{"GET", acct + "/start", nil, members, nil},
		{"GET", acct + "/members", nil, members, nil},
		{"POST", acct + "/invitations", url.Values{"email": {"kim@example.test"}, "role": {"member"}}, []string{"owner", "admin"}, nil},
		{"POST", acct + "/invitations", url.Values{"email": {"kim@example.test"}, "role": {"owner"}}, []string{"owner"}, nil},
		{"POST", acct + fmt.Sprintf("/invitations/%d/resend", inv.ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/invitations/%d/revoke", inv.ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/members/%d/role", users["member"].ID), url.Values{"role": {"admin"}}, []string{"owner"}, nil},
		{"POST", acct + fmt.Sprintf("/members/%d/role", alpha.user.ID), url.Values{"role": {"member"}}, nil, nil}, // the last owner
		{"POST", acct + fmt.Sprintf("/members/%d/remove", alpha.user.ID), url.Values{}, nil, nil},                 // the last owner
		{"POST", acct + fmt.Sprintf("/members/%d/remove", users["admin"].ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/members/%d/remove", users["seat's member"].ID), url.Values{}, []string{"owner", "admin", "seat's member"}, nil},
		{"POST", fmt.Sprintf("/settings/agents/%d/keys", ag.ID), url.Values{"account": {slug}}, []string{"owner", "admin", "seat's member"}, nil},
		{"POST", fmt.Sprintf("/settings/keys/%d/revoke", agentKeys[0].ID), url.Values{"account": {slug}, "agent": {fmt.Sprint(ag.ID)}},
			[]string{"owner", "admin", "seat's member"}, nil},
		{"POST", "/settings/agents", url.Values{"account": {slug}, "name": {"Intruder"}}, members, nil},
		{"GET", acct + "/webhooks", nil, []string{"owner", "admin"}, nil},
		{"GET", acct + fmt.Sprintf("/webhooks/%d", hook.ID), nil, []string{"owner", "admin"}, nil},
		{"POST", acct + "/webhooks", url.Values{"url": {"https://93.184.216.34/intruder"}, "events": {"room.agreed"}}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/webhooks/%d/rotate", hook.ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/webhooks/%d/enable", hook.ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + fmt.Sprintf("/webhooks/%d/delete", hook.ID), url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + "/webhooks/messages/" + hookLog[0].ID + "/again", url.Values{}, []string{"owner", "admin"}, nil},
		{"GET", acct + "/settings", nil, []string{"owner", "admin"}, nil},
		{"POST", acct + "/rename", url.Values{"name": {"Renamed"}}, []string{"owner", "admin"}, nil},
		{"POST", acct + "/export", url.Values{}, []string{"owner", "admin"}, nil},
		{"POST", acct + "/delete", url.Values{"confirm": {slug}}, []string{"owner"}, nil},
		{"POST", acct + "/delete", url.Values{"confirm": {strings.ToUpper(slug)}}, nil, nil},       // the slug mistyped
		{"POST", acct + "/leave", url.Values{}, []string{"admin", "seat's member", "member"}, nil}, // the owner is the last
		{"POST", fmt.Sprintf("/settings/agents/%d/disconnect", ag.ID), url.Values{"account": {slug}}, []string{"owner", "admin", "seat's member"}, nil},
		{"GET", fmt.Sprintf("/rooms/%d/receipt", room3), nil, leads, leads},
		{"GET", fmt.Sprintf("/rooms/%d/receipt.jws", room3), nil, leads, leads},
		{"GET", "/settings", nil, everyone, leads},
		{"GET", "/settings/deliveries", nil, everyone, leads},
	}
	secrets := []string{secretTitle, secretLimit, cid, hookSecret, r2Title, r2Limit, fmt.Sprint(r2Fee), h2, agreedTitle}
	before := s.teamState()
	tries, reads, writes := 0, 0, 0
	for _, rt := range routes {
		for who, br := range people {
			may, sees := contains(rt.may, who), contains(rt.sees, who)
			if rt.method == "POST" && may {
				continue // a write they may make: tried below
			}
			tries++
			var form url.Values
			if rt.form != nil {
				form = cloneForm(rt.form)
			}
			st, _, body := br.do(rt.method, rt.path, form)
			if may && st != http.StatusOK {
				t.Errorf("%s %s as %s: HTTP %d, want 200: %s", rt.method, rt.path, who, st, clipArgs(pageText(body)))
			}
			if !may && (st == http.StatusOK && rt.method == "POST" || st == http.StatusSeeOther || st >= 500 ||
				(rt.method == "GET" && st == http.StatusOK)) {
				t.Errorf("%s %s as %s: HTTP %d, want a refusal: %s", rt.method, rt.path, who, st, clipArgs(pageText(body)))
			}
			if !sees {
				for _, sec := range secrets {
					if strings.Contains(body, sec) {
						reads++
						t.Errorf("%s %s as %s: read %q", rt.method, rt.path, who, sec)
					}
				}
			}
			if strings.Contains(body, `action="/rooms/`+r+`/decide"`) && who != "seat's member" {
				reads++
				t.Errorf("%s %s as %s: offered to answer another's confirmation", rt.method, rt.path, who)
			}
			if now := s.teamState(); now != before {
				writes++
				t.Errorf("%s %s as %s changed what is stored", rt.method, rt.path, who)
				before = now
			}
		}
	}
	// Live updates of the room: the same lines; of one's rooms list: each
	// their own.
	streams := []route{{"GET", "/rooms/" + r + "/events", nil, leads, nil}, {"GET", "/events", nil, everyone, nil}}
	for _, rt := range streams {
		for who, br := range people {
			tries++
			st, _ := br.stream(rt.path)
			if want := contains(rt.may, who); (st == http.StatusOK) != want {
				t.Errorf("%s as %s: HTTP %d", rt.path, who, st)
			}
		}
	}
	var covered [][2]string
	for _, rt := range append(routes, streams...) {
		covered = append(covered, [2]string{rt.method, rt.path})
	}
	checkEveryRoute(t, s, covered)
	toolTries, toolReads, toolWrites := toolMatrix(t, s, toolFixture{slug: slug, other: other, keys: keys, members: members,
		seatToken: tb2, seatCode: code2, hash: h2,
		secrets: []string{secretTitle, secretLimit, cid, r2Title, r2Limit, fmt.Sprint(r2Fee), h2, agreedTitle, tok, tb2, ta3}})

	// The writes they may make, made: the seat's member declines; the
	// owner changes a role; an admin removes a member.
	if st, loc, body := people["seat's member"].do("POST", "/rooms/"+r+"/decide", url.Values{"answer": {"decline"},
		"confirmation_id": {cid}, "side": {"a"}}); st != http.StatusSeeOther {
		t.Errorf("the seat's member declines: HTTP %d %s %s", st, loc, clipArgs(pageText(body)))
	}
	if st, _, body := people["owner"].do("POST", acct+fmt.Sprintf("/members/%d/role", users["member"].ID), url.Values{"role": {"admin"}}); st != http.StatusSeeOther {
		t.Errorf("the owner changes a role: HTTP %d %s", st, clipArgs(pageText(body)))
	}
	if st, _, body := people["admin"].do("POST", acct+fmt.Sprintf("/members/%d/remove", users["seat's member"].ID), url.Values{}); st != http.StatusSeeOther {
		t.Errorf("an admin removes a member: HTTP %d %s", st, clipArgs(pageText(body)))
	}
	if st, loc, _ := people["seat's member"].do("GET", "/rooms/"+r, nil); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Errorf("the removed member's session still works: HTTP %d %s", st, loc)
	}
	if _, err := s.accounts.AuthenticateAgentKey(s.ctx, key.Key); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("the removed member's agent key still works: %v", err)
	}
	// Last, the owner deletes the account: beta still reads the room, closed.
	if st, loc, body := people["owner"].do("POST", acct+"/delete", url.Values{"confirm": {slug}}); st != http.StatusSeeOther || loc != "/account-deleted" {
		t.Errorf("the owner deletes the account: HTTP %d %s %s", st, loc, clipArgs(pageText(body)))
	}
	s.finishDeletions()
	if v := beta.must("negotiation_read", map[string]any{"room_token": joined.str("room_token")}); v.str("room", "closed_reason") != "account_deleted" {
		t.Errorf("beta's room after alpha's deletion: %v", v)
	}
	t.Logf("role matrix: %d routes × %d people, %d refused or read-only tries; reads: %d, writes: %d", len(routes), len(people), tries, reads, writes)
	t.Logf("role matrix, tools: %d tool calls; reads: %d, writes: %d", toolTries, toolReads, toolWrites)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// stream opens a live stream and returns its status (its body is not read).
func (br *browser) stream(path string) (int, error) {
	ctx, cancel := context.WithTimeout(br.s.ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", br.s.base+path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := br.http.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}
