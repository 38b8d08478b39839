package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
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
	tb.refused("an invisible name", app.ErrInvalid, "name: readable text only, without invisible or direction-changing characters or words that mix alphabets",
		func() error { _, err := tb.accounts.RenameAccount(tb.ctx, ann.ID, "alpha", "\u200b"); return err })
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

// TestAuthorityReadUnderTheLock: a change waiting for the account's
// members lock is judged by its actor's role once it holds the lock. An
// owner demoted, or removed, while their change waited cannot make
// someone owner, remove or invite any more; the refusal is a clear one,
// never an internal error.
func TestAuthorityReadUnderTheLock(t *testing.T) {
	tb, ann, ada, mo, _ := lifeTeam(t)
	bea := tb.person("bea@example.test", true)
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", bea.Email, app.MemberRoleOwner); err != nil {
		t.Fatal(err)
	}
	// behind runs first and then second while a transaction holds the
	// lock, and releases it once both wait: first takes effect first.
	behind := func(first, second func() error) (error, error) {
		t.Helper()
		hold, err := tb.pool.Begin(tb.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer hold.Rollback(tb.ctx)
		if _, err := hold.Exec(tb.ctx, `SELECT 1 FROM accounts WHERE slug = 'alpha' FOR NO KEY UPDATE`); err != nil {
			t.Fatal(err)
		}
		waiting := func(n int) {
			for range 1000 {
				k, err := pgtest.LockWaits(tb.ctx, tb.pool)
				if err != nil {
					t.Fatal(err)
				}
				if k >= n {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Fatalf("%d changes do not wait for the lock", n)
		}
		e1, e2 := make(chan error, 1), make(chan error, 1)
		go func() { e1 <- first() }()
		waiting(1)
		go func() { e2 <- second() }()
		waiting(2)
		if err := hold.Commit(tb.ctx); err != nil {
			t.Fatal(err)
		}
		return <-e1, <-e2
	}
	demoted, promoted := behind(
		func() error { return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", bea.ID, app.MemberRoleMember) },
		func() error { return tb.accounts.ChangeRole(tb.ctx, bea.ID, "alpha", mo.ID, app.MemberRoleOwner) })
	if demoted != nil {
		t.Fatal(demoted)
	}
	wantError(t, promoted, app.ErrUnauthorized, "role: only the account's owners change roles")
	if m, _ := tb.accounts.Membership(tb.ctx, mo.ID, "alpha"); m.Role != app.MemberRoleMember {
		t.Errorf("mo is %s after a demoted owner's change", m.Role)
	}
	_, invited := behind(
		func() error { return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleMember) },
		func() error {
			_, err := tb.accounts.Invite(tb.ctx, ada.ID, "alpha", "newcomer@example.test", app.MemberRoleMember)
			return err
		})
	wantError(t, invited, app.ErrUnauthorized, "invitation: only the account's owners and admins invite")
	if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", bea.ID, app.MemberRoleOwner); err != nil {
		t.Fatal(err)
	}
	removed, removal := behind(
		func() error { return tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", bea.ID) },
		func() error { return tb.accounts.RemoveMember(tb.ctx, bea.ID, "alpha", mo.ID) })
	if removed != nil {
		t.Fatal(removed)
	}
	wantError(t, removal, app.ErrNotFound, `account: you are not a member of "alpha"`)
	if _, err := tb.accounts.Membership(tb.ctx, mo.ID, "alpha"); err != nil {
		t.Errorf("mo was removed by a person removed before: %v", err)
	}
}
