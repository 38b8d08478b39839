package app_test

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestInvitationsEndWithTheirSendersAuthority: an invitation's link carries
// the authority of whoever sent it, as a key issued for a colleague's agent
// does. Ada, an admin, invites eve; when Ada is removed, leaves or is made a
// member, eve's link is revoked (in the audit log, by whoever acted) and
// eve cannot join. An owner made admin keeps the member invitations she
// sent and loses the admin one. An invitation the owner sent again is the
// owner's: it goes on after Ada's removal, and its mail names the owner.
func TestInvitationsEndWithTheirSendersAuthority(t *testing.T) {
	revoked := "invitation: this link was revoked by the account; ask its owners for a new one"
	for _, how := range []string{"removed", "left", "made member", "owner made admin", "sent again by the owner"} {
		t.Run(how, func(t *testing.T) {
			tb, ann, ada, _, _ := lifeTeam(t)
			if how == "owner made admin" {
				if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleOwner); err != nil {
					t.Fatal(err)
				}
			}
			inv, err := tb.accounts.Invite(tb.ctx, ada.ID, "alpha", "eve@example.test", app.MemberRoleMember)
			if err != nil {
				t.Fatal(err)
			}
			eveLink, _ := tb.lastInviteLink()
			var zedLink string
			if how == "owner made admin" {
				if _, err := tb.accounts.Invite(tb.ctx, ada.ID, "alpha", "zed@example.test", app.MemberRoleAdmin); err != nil {
					t.Fatal(err)
				}
				zedLink, _ = tb.lastInviteLink()
			}
			if how == "sent again by the owner" {
				if err := tb.accounts.ResendInvitation(tb.ctx, ann.ID, "alpha", inv.ID); err != nil {
					t.Fatal(err)
				}
				var to string
				if eveLink, to = tb.lastInviteLink(); to != "eve@example.test" {
					t.Fatalf("the invitation sent again went to %s", to)
				}
				invs, err := tb.accounts.Invitations(tb.ctx, ann.ID, "alpha")
				if err != nil || len(invs) != 1 || invs[0].InvitedBy != "ann@example.test" {
					t.Fatalf("the invitation sent again by ann: %+v %v", invs, err)
				}
			}
			actor := ann
			switch how {
			case "removed", "sent again by the owner":
				err = tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", ada.ID)
			case "left":
				err, actor = tb.accounts.Leave(tb.ctx, ada.ID, "alpha"), ada
			case "made member":
				err = tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleMember)
			case "owner made admin":
				err = tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", ada.ID, app.MemberRoleAdmin)
			}
			if err != nil {
				t.Fatal(err)
			}
			entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
			if err != nil {
				t.Fatal(err)
			}
			eve := tb.person("eve@example.test", true)
			_, eveErr := tb.accounts.AcceptInvitation(tb.ctx, eve.ID, eveLink)
			switch how {
			case "owner made admin":
				// An admin invites members: eve's goes on, zed's (an admin) ends.
				if eveErr != nil {
					t.Errorf("eve's invitation to be a member, sent by an owner made admin: %v", eveErr)
				}
				zed := tb.person("zed@example.test", true)
				if _, err := tb.accounts.AcceptInvitation(tb.ctx, zed.ID, zedLink); app.ErrorMessageOf(err) != revoked {
					t.Errorf("zed joins as admin, invited by an owner made admin: %v", err)
				}
				if e := entries[0]; e.Action != app.AuditInvitationRevoked || e.Detail["email"] != "zed@example.test" || e.Actor != "ann@example.test" {
					t.Errorf("the newest entry: %+v", e)
				}
			case "sent again by the owner":
				if eveErr != nil {
					t.Errorf("eve's invitation, sent again by ann, after ada's removal: %v", eveErr)
				}
				if entries[0].Action != app.AuditMemberRemoved {
					t.Errorf("the newest entry: %+v", entries[0])
				}
			default:
				if app.ErrorMessageOf(eveErr) != revoked {
					t.Errorf("eve joins after her inviter was %s: %v", how, eveErr)
				}
				if e := entries[0]; e.Action != app.AuditInvitationRevoked || e.Detail["email"] != "eve@example.test" ||
					e.Detail["role"] != "member" || e.Actor != actor.Email {
					t.Errorf("the newest entry: %+v", e)
				}
				if invs, err := tb.accounts.Invitations(tb.ctx, ann.ID, "alpha"); err != nil || len(invs) != 0 {
					t.Errorf("pending invitations: %+v %v", invs, err)
				}
			}
		})
	}
}
