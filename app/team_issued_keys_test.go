package app_test

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestKeysAnIssuerWasShown: Ada, an admin, issues a key for Mo's agent
// (she is shown it once), and Mo issues one himself. When Ada is made a
// member, who no longer manages a colleague's agent, the key she was
// shown stops and Mo's own goes on; the same when an admin leaves the
// account. Ada's own agent keeps its keys when she is demoted, and loses
// them when she is removed, as any member's.
func TestKeysAnIssuerWasShown(t *testing.T) {
	for _, how := range []string{"demoted", "removed"} {
		t.Run(how, func(t *testing.T) {
			tb, ann, ada, mo, _ := lifeTeam(t)
			moAgent, moKey, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
			if err != nil {
				t.Fatal(err)
			}
			_, adaOwn, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ada.ID), "alpha", "Ada's agent", ada.Email)
			if err != nil {
				t.Fatal(err)
			}
			shown, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, ada.ID), "alpha", moAgent.ID)
			if err != nil {
				t.Fatal(err)
			}
			works := func(key app.NewAgentKey) bool {
				_, err := tb.accounts.AuthenticateAgentKey(tb.ctx, key.Key)
				return err == nil
			}
			if !works(shown) || !works(moKey) || !works(adaOwn) {
				t.Fatal("the keys do not work before")
			}
			if how == "demoted" {
				err = tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleMember)
			} else {
				err = tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", ada.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
			if works(shown) {
				t.Errorf("%s: the key Ada was shown for Mo's agent still works", how)
			}
			if !works(moKey) {
				t.Errorf("%s: Mo's own key stopped", how)
			}
			if works(adaOwn) != (how == "demoted") {
				t.Errorf("%s: Ada's own agent's key works: %v", how, works(adaOwn))
			}
			var revoked int
			if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM agent_keys WHERE revoked_at IS NOT NULL`).Scan(&revoked); err != nil {
				t.Fatal(err)
			}
			if want := map[string]int{"demoted": 1, "removed": 2}[how]; revoked != want {
				t.Errorf("%s: %d keys revoked, want %d", how, revoked, want)
			}
		})
	}
}

// TestChangeToTheSameRole: setting a member's role to the one they hold
// changes nothing, not even the audit log: an owner who saves the members
// page unchanged has not changed a role.
func TestChangeToTheSameRole(t *testing.T) {
	tb, ann, ada, _, _ := lifeTeam(t)
	before, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	after, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || after[0].ID != before[0].ID {
		t.Errorf("the audit log grew by %d entries, the newest %s", len(after)-len(before), after[0].Action)
	}
}
