package app_test

import (
	"strconv"
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

// behind runs first and then second while a transaction holds alpha's
// lock, and releases it once both wait: first takes effect first.
func (tb *teamBundle) behind(first, second func() error) (error, error) {
	t := tb.t
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

// TestKeyIssuedWhileTheIssuerLosesTheRole: Ada, an admin, issues a key for
// Mo's agent while Ann makes her a member (or removes her), and her
// request waits for the account's lock behind Ann's change: it is refused
// as Ada's role stands once the lock is hers, and no key is made. (Read
// before the lock, her role was still admin: the key was issued after the
// change had revoked the keys she issued, and it worked for the member
// she became, or for nobody in the account.) The same with the caps off,
// where no lock was taken at all.
func TestKeyIssuedWhileTheIssuerLosesTheRole(t *testing.T) {
	for _, how := range []string{"demoted", "removed", "demoted, no caps"} {
		t.Run(how, func(t *testing.T) {
			tb, ann, ada, mo, _ := lifeTeam(t)
			if how != "demoted, no caps" {
				tb.accounts.SetCaps(app.Caps{AgentsPerAccount: 100, KeysPerAgent: 10})
			}
			moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
			if err != nil {
				t.Fatal(err)
			}
			var key app.NewAgentKey
			changed, issued := tb.behind(func() error {
				if how == "removed" {
					return tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", ada.ID)
				}
				return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleMember)
			}, func() error {
				var err error
				key, err = tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, ada.ID), "alpha", moAgent.ID)
				return err
			})
			if changed != nil {
				t.Fatal(changed)
			}
			if how == "removed" {
				wantError(t, issued, app.ErrNotFound, "agent "+strconv.FormatInt(moAgent.ID, 10)+" not found in account alpha")
			} else {
				wantError(t, issued, app.ErrUnauthorized, "agent: only Mo's agent's human and the account's owners and admins manage its keys")
			}
			if key.Key != "" {
				if _, err := tb.accounts.AuthenticateAgentKey(tb.ctx, key.Key); err == nil {
					t.Error("the key Ada was issued works")
				}
			}
			var n int
			if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM agent_keys WHERE agent_id = $1`, moAgent.ID).Scan(&n); err != nil || n != 1 {
				t.Errorf("Mo's agent has %d keys (%v), want its first only", n, err)
			}
		})
	}
}

// TestAgentForSomeoneRemovedMeanwhile: Mo creates an agent in Settings, or
// consents to an assistant (OAuth), while Ann removes him, and his request
// waits for the account's lock behind the removal: it is refused, saying
// he is not a member, and makes no agent (read before the lock, his
// membership let the agent's insert fail on it: an internal error).
func TestAgentForSomeoneRemovedMeanwhile(t *testing.T) {
	for _, how := range []string{"settings", "oauth"} {
		t.Run(how, func(t *testing.T) {
			tb, ann, _, mo, _ := lifeTeam(t)
			tb.accounts.SetCaps(app.Caps{AgentsPerAccount: 100, KeysPerAgent: 10})
			oauth := app.NewOAuth(tb.pool)
			client, err := oauth.SaveClient(tb.ctx, app.OAuthClient{ID: "https://assistant.example/oauth/client.json",
				Kind: app.OAuthClientMetadataDocument, Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
			if err != nil {
				t.Fatal(err)
			}
			removed, made := tb.behind(func() error { return tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID) },
				func() error {
					if how == "oauth" {
						_, err := oauth.Connect(tb.ctx, mo.ID, "alpha", client)
						return err
					}
					_, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
					return err
				})
			if removed != nil {
				t.Fatal(removed)
			}
			if how == "oauth" {
				wantError(t, made, app.ErrUnauthorized, `account: you are not a member of "alpha", so you cannot connect an agent for it`)
			} else {
				wantError(t, made, app.ErrInvalid, "owner email: mo@example.test is not a member of account alpha")
			}
			var n int
			if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM agents`).Scan(&n); err != nil || n != 0 {
				t.Errorf("%d agents (%v), want none", n, err)
			}
		})
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
	behind := tb.behind
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
