package dashboard

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestListStreamRenewedAsItsScopeGrows: the access check of Carol's rooms
// list, while she is an admin of two accounts whose ids are not in their
// slugs' order: with nothing changed she keeps it as it is; made a member
// of a third account, or an admin of a fourth, her list is renewed, to
// follow what it shows now.
func TestListStreamRenewedAsItsScopeGrows(t *testing.T) {
	b := setup(t)
	b.account3("aaa-co", "AAA", "zed@example.test") // made after beta, before it by slug
	b.account3("delta-co", "Delta", "dee@example.test")
	join := func(slug string, role app.MemberRole) {
		t.Helper()
		if err := b.accounts.AddMemberAsOperator(b.ctx, slug, b.carol.Email, role); err != nil {
			t.Fatal(err)
		}
	}
	opened := func() accessCheck {
		t.Helper()
		ms, err := b.accounts.Memberships(b.ctx, b.carol.ID)
		if err != nil {
			t.Fatal(err)
		}
		return b.dash.listAccessLost(listScopeOf(ms))
	}
	checked := func(name string, lost accessCheck, wantRenew bool) {
		t.Helper()
		why, renew, err := lost(b.ctx, b.carol.ID)
		if err != nil || why != "" || renew != wantRenew {
			t.Errorf("%s: why %q, renew %v, err %v; want renew %v", name, why, renew, err, wantRenew)
		}
	}
	join(b.beta.AccountSlug, app.MemberRoleAdmin)
	join("aaa-co", app.MemberRoleAdmin)
	list := opened()
	checked("nothing changed", list, false)
	join("alpha", app.MemberRoleMember)
	checked("a member of a third account", list, true)
	list = opened()
	join("delta-co", app.MemberRoleAdmin)
	checked("an admin of a fourth account", list, true)
}
