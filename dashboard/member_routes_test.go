package dashboard

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestMemberRoutesHeldToTheRoles: the forms that change a role, remove a
// member and leave, posted as a browser without JavaScript posts them. A
// member removes nobody, an admin changes no role nor removes an owner,
// another account's owner is told there is no such account, and each
// refusal changes nothing; an owner changes a role, an admin removes a
// member (whose session ends), and removing oneself is leaving: it signs
// the person out.
func TestMemberRoutesHeldToTheRoles(t *testing.T) {
	b := setup(t)
	ann := b.account3("alpha-co", "Alpha", "ann@example.test")
	eve := b.account3("beta-co", "Beta", "eve@example.test")
	person := func(email string, role app.MemberRole) app.User {
		t.Helper()
		if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha-co", email, role); err != nil {
			t.Fatal(err)
		}
		u, err := b.accounts.UserByEmail(b.ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	bob, cat, dan := person("bob@example.test", app.MemberRoleAdmin), person("cat@example.test", app.MemberRoleMember), person("dan@example.test", app.MemberRoleMember)
	roleOf := func(u app.User) app.MemberRole {
		t.Helper()
		m, err := b.accounts.Membership(b.ctx, u.ID, "alpha-co")
		if app.ErrorCodeOf(err) == app.ErrNotFound {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		return m.Role
	}
	signedIn := func(u app.User) *client {
		cl := b.client(&u)
		cl.get("/settings")
		return cl
	}
	path := func(u app.User, what string) string {
		return fmt.Sprintf("/accounts/alpha-co/members/%d/%s", u.ID, what)
	}
	refused := func(who *client, name, p string, form url.Values, status int, says string) {
		t.Helper()
		st, _, body := who.post(p, form)
		if st != status || !strings.Contains(body, says) {
			t.Errorf("%s: %d, want %d saying %q\n%s", name, st, status, says, body)
		}
	}
	catC, bobC, eveC := signedIn(cat), signedIn(bob), signedIn(eve)
	refused(catC, "a member removes a member", path(dan, "remove"), nil, 403, "member: only the account&#39;s owners remove an owner or admin")
	refused(catC, "a member changes a role", path(cat, "role"), url.Values{"role": {"owner"}}, 403, "role: only the account&#39;s owners change roles")
	refused(bobC, "an admin changes a role", path(cat, "role"), url.Values{"role": {"admin"}}, 403, "role: only the account&#39;s owners change roles")
	refused(bobC, "an admin removes the owner", path(ann, "remove"), nil, 403, "member: only the account&#39;s owners remove an owner or admin")
	refused(eveC, "another account's owner changes a role", path(cat, "role"), url.Values{"role": {"owner"}}, 404, `account: you are not a member of &#34;alpha-co&#34;`)
	refused(eveC, "another account's owner removes a member", path(dan, "remove"), nil, 404, `account: you are not a member of &#34;alpha-co&#34;`)
	if r1, r2, r3, r4 := roleOf(ann), roleOf(bob), roleOf(cat), roleOf(dan); r1 != app.MemberRoleOwner || r2 != app.MemberRoleAdmin || r3 != app.MemberRoleMember || r4 != app.MemberRoleMember {
		t.Fatalf("the roles after the refusals: %s %s %s %s", r1, r2, r3, r4)
	}

	annC := signedIn(ann)
	if st, loc, _ := annC.post(path(cat, "role"), url.Values{"role": {"admin"}}); st != 303 || loc != "/accounts/alpha-co/members?done=role" {
		t.Fatalf("the owner makes cat admin: %d %q", st, loc)
	}
	if r := roleOf(cat); r != app.MemberRoleAdmin {
		t.Fatalf("cat's role: %s", r)
	}
	danC := signedIn(dan)
	if st, loc, _ := bobC.post(path(dan, "remove"), nil); st != 303 || loc != "/accounts/alpha-co/members?done=removed" {
		t.Fatalf("the admin removes dan: %d %q", st, loc)
	}
	if r := roleOf(dan); r != "" {
		t.Fatalf("dan after the removal: %s", r)
	}
	if st, loc, _ := danC.get("/accounts/alpha-co/members"); st != 303 || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("dan's session after the removal: %d %q", st, loc)
	}
	// Removing oneself is leaving: signed out, the cookie cleared.
	if st, loc, _ := catC.post(path(cat, "remove"), nil); st != 303 || loc != "/signed-out" {
		t.Fatalf("cat removes herself: %d %q", st, loc)
	}
	if _, ok := catC.cookies[sessionCookie]; ok || roleOf(cat) != "" {
		t.Fatalf("cat after leaving: cookie kept %v, role %q", ok, roleOf(cat))
	}
	if st, loc, _ := bobC.post("/accounts/alpha-co/leave", nil); st != 303 || loc != "/signed-out" {
		t.Fatalf("bob leaves: %d %q", st, loc)
	}
	if _, ok := bobC.cookies[sessionCookie]; ok || roleOf(bob) != "" {
		t.Fatalf("bob after leaving: cookie kept %v, role %q", ok, roleOf(bob))
	}
	refused(annC, "the last owner leaves", "/accounts/alpha-co/leave", nil, 409, "member: you are the account&#39;s last owner and cannot leave it")
	if roleOf(ann) != app.MemberRoleOwner {
		t.Fatal("the last owner left")
	}
}
