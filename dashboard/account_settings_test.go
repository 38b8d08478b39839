package dashboard

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestAccountSettingsPage: the owner renames the account and sees it in
// the audit log; a bad name is refused with its rule and changes nothing;
// a member may not see the page nor rename.
func TestAccountSettingsPage(t *testing.T) {
	b := setup(t)
	ann := b.account3("alpha-co", "Alpha", "ann@example.test")
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha-co", "mo@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	mo, err := b.accounts.UserByEmail(b.ctx, "mo@example.test")
	if err != nil {
		t.Fatal(err)
	}
	owner := b.client(&ann)
	if st, _, body := owner.get("/accounts/alpha-co/settings"); st != 200 || !strings.Contains(body, `value="Alpha"`) || !strings.Contains(body, `data-audit="member.added"`) {
		t.Fatalf("the settings page: %d\n%s", st, body)
	}
	if st, loc, _ := owner.post("/accounts/alpha-co/rename", url.Values{"name": {"Alpha Studio"}}); st != 303 || loc != "/accounts/alpha-co/settings?done=renamed" {
		t.Fatalf("rename: %d %q", st, loc)
	}
	st, _, body := owner.get("/accounts/alpha-co/settings?done=renamed")
	if st != 200 || !strings.Contains(body, "The account was renamed.") || !strings.Contains(body, `data-audit="account.renamed"`) || !strings.Contains(body, "to: Alpha Studio") {
		t.Fatalf("after the rename: %d\n%s", st, body)
	}
	st, _, body = owner.post("/accounts/alpha-co/rename", url.Values{"name": {strings.Repeat("n", 81)}})
	if st != 400 || !strings.Contains(body, "name: must be 1–80 characters") {
		t.Fatalf("a long name: %d\n%s", st, body)
	}
	if a, _ := b.accounts.AccountBySlug(b.ctx, "alpha-co"); a.Name != "Alpha Studio" {
		t.Fatalf("the name after a refusal: %q", a.Name)
	}
	st, _, body = owner.post("/accounts/alpha-co/export", nil)
	var ex app.AccountExport
	if err := json.Unmarshal([]byte(body), &ex); st != 200 || err != nil || ex.Account != "alpha-co" || ex.Name != "Alpha Studio" || len(ex.AuditLog) == 0 {
		t.Fatalf("the export: %d %v\n%s", st, err, body)
	}
	member := b.client(&mo)
	if st, _, _ := member.get("/accounts/alpha-co/settings"); st != 403 {
		t.Fatalf("a member sees the settings: %d", st)
	}
	member.get("/settings")
	if st, _, _ := member.post("/accounts/alpha-co/rename", url.Values{"name": {"Mine"}}); st != 403 {
		t.Fatalf("a member renames: %d", st)
	}
	if st, _, _ := member.post("/accounts/alpha-co/export", nil); st != 403 {
		t.Fatalf("a member exports: %d", st)
	}
	if st, _, _ := owner.get("/accounts/alpha-co/settings?cursor=zz"); st != 400 {
		t.Fatalf("a bad cursor: %d", st)
	}
}

// TestAccountDeletePage: only an owner sees the section and may post it;
// a wrong slug is refused with its rule and changes nothing; the owner's
// deletion lands on the page that says it is done, which offers a new
// account to a person who has none left (their session ended with them).
func TestAccountDeletePage(t *testing.T) {
	b := setup(t)
	ann := b.account3("delta-co", "Delta", "ann@example.test")
	for _, m := range []struct {
		email string
		role  app.MemberRole
	}{{"ada@example.test", app.MemberRoleAdmin}, {"mo@example.test", app.MemberRoleMember}} {
		if err := b.accounts.AddMemberAsOperator(b.ctx, "delta-co", m.email, m.role); err != nil {
			t.Fatal(err)
		}
	}
	user := func(email string) *app.User {
		u, err := b.accounts.UserByEmail(b.ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		return &u
	}
	owner, admin, member := b.client(&ann), b.client(user("ada@example.test")), b.client(user("mo@example.test"))
	if st, _, body := owner.get("/accounts/delta-co/settings"); st != 200 || !strings.Contains(body, "data-delete-account") ||
		!strings.Contains(body, "Type the account&#39;s slug, delta-co, to confirm") {
		t.Fatalf("the owner's settings page: %d\n%s", st, body)
	}
	if st, _, body := admin.get("/accounts/delta-co/settings"); st != 200 || strings.Contains(body, "data-delete-account") {
		t.Fatalf("an admin's settings page offers the deletion: %d", st)
	}
	member.get("/settings")
	for who, cl := range map[string]*client{"an admin": admin, "a member": member} {
		if st, _, _ := cl.post("/accounts/delta-co/delete", url.Values{"confirm": {"delta-co"}}); st != 403 {
			t.Fatalf("%s deletes: %d", who, st)
		}
	}
	owner.get("/accounts/delta-co/settings")
	st, _, body := owner.post("/accounts/delta-co/delete", url.Values{"confirm": {"Delta"}})
	if st != 400 || !strings.Contains(body, "confirm: type the account&#39;s slug, delta-co, exactly as it is written, to delete the account") {
		t.Fatalf("a wrong slug: %d\n%s", st, body)
	}
	if _, err := b.accounts.AccountBySlug(b.ctx, "delta-co"); err != nil {
		t.Fatalf("after a refusal: %v", err)
	}
	if st, loc, _ := owner.post("/accounts/delta-co/delete", url.Values{"confirm": {"delta-co"}}); st != 303 || loc != "/account-deleted" {
		t.Fatalf("the deletion: %d %q", st, loc)
	}
	// Until its job has run: a member who signs in again is told, and
	// gets nothing of it; the owner's second deletion is harmless.
	moUser := user("mo@example.test")
	mo := b.client(moUser) // signed in again, after the deletion began
	if st, _, body := mo.get("/"); st != 200 || !strings.Contains(body, "data-account-deleting") || !strings.Contains(body, "Delta is being deleted") {
		t.Fatalf("the member's rooms page while the account is being deleted: %d\n%s", st, body)
	}
	if st, _, body := mo.get("/accounts/delta-co/members"); st != 404 || !strings.Contains(body, "account: Delta is being deleted") {
		t.Fatalf("the member's members page while the account is being deleted: %d\n%s", st, body)
	}
	again := b.client(&ann)
	again.get("/settings")
	if st, loc, _ := again.post("/accounts/delta-co/delete", url.Values{"confirm": {"delta-co"}}); st != 303 || loc != "/account-deleted" {
		t.Fatalf("a second deletion: %d %q", st, loc)
	}
	b.workDeletions(t)
	b.waitAccountGone(t, "delta-co")
	if _, err := b.accounts.AccountBySlug(b.ctx, "delta-co"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("the account after its deletion: %v", err)
	}
	st, _, body = owner.get("/account-deleted")
	if st != 200 || !strings.Contains(body, "The account is being deleted") || !strings.Contains(body, `href="/signup"`) {
		t.Fatalf("the page after: %d\n%s", st, body)
	}
	if st, loc, _ := owner.get("/accounts/delta-co/settings"); st != 303 || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("the erased owner's session: %d %q", st, loc)
	}
}
