package app_test

import (
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// lifeTeam is account alpha with ann its owner, ada an admin and mo a
// member, and oz who owns another account.
func lifeTeam(t *testing.T) (*teamBundle, app.User, app.User, app.User, app.User) {
	tb := setupTeams(t, 5, 20)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	for email, role := range map[string]app.MemberRole{"ada@example.test": app.MemberRoleAdmin, "mo@example.test": app.MemberRoleMember} {
		if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", email, role); err != nil {
			t.Fatal(err)
		}
	}
	oz := tb.person("oz@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, oz.ID, "Oz", "ozone"); err != nil {
		t.Fatal(err)
	}
	return tb, ann, tb.person("ada@example.test", true), tb.person("mo@example.test", true), oz
}

// TestRenameAccount: owners and admins rename the account (audited, the
// slug stays); a member, a stranger and a bad name are refused, changing
// nothing.
func TestRenameAccount(t *testing.T) {
	tb, ann, ada, mo, oz := lifeTeam(t)
	acct, err := tb.accounts.RenameAccount(tb.ctx, ada.ID, "alpha", "  Alpha Studio ")
	if err != nil || acct.Name != "Alpha Studio" || acct.Slug != "alpha" {
		t.Fatalf("admin renames: %+v %v", acct, err)
	}
	if acct, err = tb.accounts.RenameAccount(tb.ctx, ann.ID, "alpha", "Alpha Works"); err != nil || acct.Name != "Alpha Works" {
		t.Fatalf("owner renames: %+v %v", acct, err)
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Action != app.AuditAccountRenamed || e.Actor != "ann@example.test" || e.Detail["from"] != "Alpha Studio" || e.Detail["to"] != "Alpha Works" {
		t.Fatalf("the newest entry: %+v", e)
	}
	tb.refused("a member renames", app.ErrUnauthorized, "name: only the account's owners and admins rename it",
		func() error { _, err := tb.accounts.RenameAccount(tb.ctx, mo.ID, "alpha", "Mine"); return err })
	tb.refused("another account's owner renames", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error { _, err := tb.accounts.RenameAccount(tb.ctx, oz.ID, "alpha", "Mine"); return err })
	tb.refused("an empty name", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 0)",
		func() error { _, err := tb.accounts.RenameAccount(tb.ctx, ann.ID, "alpha", "   "); return err })
	tb.refused("a long name", app.ErrInvalid, "name: must be 1–80 characters, without control characters (got 81)",
		func() error {
			_, err := tb.accounts.RenameAccount(tb.ctx, ann.ID, "alpha", strings.Repeat("n", 81))
			return err
		})
	if got, _ := tb.accounts.AccountBySlug(tb.ctx, "alpha"); got.Name != "Alpha Works" {
		t.Fatalf("after the refusals the name is %q", got.Name)
	}
}

// TestAuditLogAccess: owners and admins read the log, a page at a time;
// members and strangers are refused.
func TestAuditLogAccess(t *testing.T) {
	tb, ann, ada, mo, oz := lifeTeam(t)
	for i := range app.AuditPageSize + 3 {
		if _, err := tb.accounts.RenameAccount(tb.ctx, ann.ID, "alpha", "Alpha "+strings.Repeat("x", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	first, next, err := tb.accounts.AuditLog(tb.ctx, ada.ID, "alpha", "")
	if err != nil || len(first) != app.AuditPageSize || next == "" {
		t.Fatalf("first page: %d entries, next %q, %v", len(first), next, err)
	}
	second, end, err := tb.accounts.AuditLog(tb.ctx, ada.ID, "alpha", next)
	// 53 renames, the account's creation, two members added.
	if err != nil || len(second) != 6 || end != "" || second[0].ID >= first[len(first)-1].ID {
		t.Fatalf("second page: %d entries, next %q, %v", len(second), end, err)
	}
	if _, _, err := tb.accounts.AuditLog(tb.ctx, mo.ID, "alpha", ""); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Fatalf("a member reads the log: %v", err)
	}
	if _, _, err := tb.accounts.AuditLog(tb.ctx, oz.ID, "alpha", ""); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("a stranger reads the log: %v", err)
	}
	if _, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "x"); app.ErrorCodeOf(err) != app.ErrInvalid {
		t.Fatalf("a bad cursor: %v", err)
	}
}
