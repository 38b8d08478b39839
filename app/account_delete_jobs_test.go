package app_test

import (
	"encoding/json"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestDeleteAccountForgetsInviteesInJobs: deleting an account erases its
// invitations "with the address invited"; River keeps the invitation
// mail's finished job a day (7 days if it failed), in its arguments the
// invitee's address, shown to operators in the job list. The deletion
// takes the address out of those arguments too.
func TestDeleteAccountForgetsInviteesInJobs(t *testing.T) {
	tb := setupTeams(t, 0, 0)
	ann := tb.person("ann@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "bob@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	// And a room its agent invited a stranger to by email.
	agent, _, err := tb.accounts.CreateAgent(tb.ctx, "alpha", "Scheduler", "ann@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Open(tb.ctx, agent, app.OpenInput{Schema: json.RawMessage(`{"n":{"type":"int","label":"N"}}`), InviteEmail: "kim@example.test"}); err != nil {
		t.Fatal(err)
	}
	// The worker has sent both (this bundle's River client works nothing).
	if _, err := tb.pool.Exec(tb.ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE kind IN ('member_invite', 'notify_invite')`); err != nil {
		t.Fatal(err)
	}
	// And one still queued: its room closed by the deletion, it would be
	// skipped, and kept a day finished with the address.
	if _, err := tb.rooms.Open(tb.ctx, agent, app.OpenInput{Schema: json.RawMessage(`{"n":{"type":"int","label":"N"}}`), InviteEmail: "lee@example.test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.DeleteAccountNow(tb.ctx, ann.ID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	var kept int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM river_job WHERE kind IN ('member_invite', 'notify_invite')
		AND (args::text LIKE '%bob@example.test%' OR args::text LIKE '%kim@example.test%' OR args::text LIKE '%lee@example.test%')`).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("%d invitation jobs still hold an invitee's address (%v)", kept, err)
	}
}
