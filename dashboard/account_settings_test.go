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
