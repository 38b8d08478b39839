package app_test

import (
	"strconv"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestTeamChangesStayInTheirAccount: a person in two accounts whose role
// is changed in one, then who is removed from it, keeps in the other what
// they had there: their role, their agent's key and the key they issued
// for a colleague's agent, their seat in a room with the confirmation it
// waits on, and the invitation they sent.
func TestTeamChangesStayInTheirAccount(t *testing.T) {
	tb := setupTeams(t, 0, 0)
	ann, dan, bob := tb.person("ann@example.test", true), tb.person("dan@example.test", true), tb.person("bob@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.SignUp(tb.ctx, dan.ID, "Beta", "beta"); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", bob.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "beta", bob.Email, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	cat := tb.person("cat@example.test", true) // beta's member, alpha's admin
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "beta", cat.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", cat.Email, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	asBob := app.AsActor(tb.ctx, bob.ID)
	_, bobAlphaKey, err := tb.accounts.CreateAgent(asBob, "alpha", "Bob in Alpha", bob.Email)
	if err != nil {
		t.Fatal(err)
	}
	bobBeta, bobBetaKey, err := tb.accounts.CreateAgent(asBob, "beta", "Bob in Beta", bob.Email)
	if err != nil {
		t.Fatal(err)
	}
	danAgent, _, err := tb.accounts.CreateAgent(tb.ctx, "beta", "Dan's agent", dan.Email)
	if err != nil {
		t.Fatal(err)
	}
	issued, err := tb.accounts.IssueAgentKey(asBob, "beta", danAgent.ID) // bob, beta's admin, for a colleague's agent
	if err != nil {
		t.Fatal(err)
	}
	annAgent, _, err := tb.accounts.CreateAgent(tb.ctx, "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, bobBeta, app.OpenInput{Schema: teamSchema, Title: "Bob's lunch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, annAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	conf, _, err := tb.rooms.RequestConfirmation(tb.ctx, bobBeta, open.RoomToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	// The room's other side is alpha's: its owner does not answer beta's
	// confirmation; cat, beta's member, sees alpha's side only.
	tb.refused("alpha's owner answers beta's confirmation", app.ErrNotFound, "confirmation not found", func() error {
		_, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, open.View.RoomID, conf.ID, "", true)
		return err
	})
	if h, err := tb.rooms.ForHuman(tb.ctx, cat.ID, open.View.RoomID, "", ""); err != nil || h.Side != negotiation.SideB || h.CanDecide {
		t.Fatalf("the room for cat, beta's member and alpha's admin: %+v %v", h, err)
	}
	if _, err := tb.accounts.Invite(tb.ctx, bob.ID, "beta", "newcomer@example.test", app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	betaKept := func(when string) {
		t.Helper()
		if m, err := tb.accounts.Membership(tb.ctx, bob.ID, "beta"); err != nil || m.Role != app.MemberRoleAdmin {
			t.Errorf("%s: bob in beta: %+v %v", when, m, err)
		}
		for name, key := range map[string]string{"bob's agent's key": bobBetaKey.Key, "the key bob issued for dan's agent": issued.Key} {
			if _, err := tb.accounts.AuthenticateAgentKey(tb.ctx, key); err != nil {
				t.Errorf("%s: %s in beta: %v", when, name, err)
			}
		}
		h, err := tb.rooms.ForHuman(tb.ctx, bob.ID, open.View.RoomID, negotiation.SideA, "")
		if err != nil || !h.SeatIsYou || h.SeatOrphaned || !h.CanDecide || h.CanCancel {
			t.Errorf("%s: bob's seat in beta's room: %+v %v", when, h, err)
		}
		invs, err := tb.accounts.Invitations(tb.ctx, dan.ID, "beta")
		if err != nil || len(invs) != 1 || invs[0].Email != "newcomer@example.test" {
			t.Errorf("%s: beta's invitations: %+v %v", when, invs, err)
		}
	}
	betaKept("at first")

	if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", bob.ID, app.MemberRoleOwner); err != nil {
		t.Fatal(err)
	}
	if m, err := tb.accounts.Membership(tb.ctx, bob.ID, "alpha"); err != nil || m.Role != app.MemberRoleOwner {
		t.Fatalf("bob in alpha: %+v %v", m, err)
	}
	betaKept("after alpha made bob owner")

	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", bob.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.Membership(tb.ctx, bob.ID, "alpha"); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("bob in alpha after the removal: %v", err)
	}
	if _, err := tb.accounts.AuthenticateAgentKey(tb.ctx, bobAlphaKey.Key); app.ErrorCodeOf(err) != app.ErrUnauthorized {
		t.Errorf("bob's agent's key in alpha after the removal: %v", err)
	}
	betaKept("after alpha removed bob")
}

// TestTeamRefusesAnotherAccountsThings: an owner of one account is told
// there is no such invitation or agent when they name another account's
// by its id through their own account or that one; a member does not see
// their account's invitations. Nothing changes.
func TestTeamRefusesAnotherAccountsThings(t *testing.T) {
	tb := setupTeams(t, 0, 0)
	ann, dan, cat := tb.person("ann@example.test", true), tb.person("dan@example.test", true), tb.person("cat@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.SignUp(tb.ctx, dan.ID, "Beta", "beta"); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", cat.Email, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	inv, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "newcomer@example.test", app.MemberRoleMember)
	if err != nil {
		t.Fatal(err)
	}
	annAgent, _, err := tb.accounts.CreateAgent(tb.ctx, "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	tb.refused("beta's owner revokes alpha's invitation", app.ErrNotFound, "invitation: no invitation "+strconv.FormatInt(inv.ID, 10)+" in account beta",
		func() error { return tb.accounts.RevokeInvitation(tb.ctx, dan.ID, "beta", inv.ID) })
	tb.refused("beta's owner sends alpha's invitation again", app.ErrNotFound, "invitation: no invitation "+strconv.FormatInt(inv.ID, 10)+" in account beta",
		func() error { return tb.accounts.ResendInvitation(tb.ctx, dan.ID, "beta", inv.ID) })
	tb.refused("a member lists the invitations", app.ErrUnauthorized, "invitation: only the account's owners and admins see invitations",
		func() error { _, err := tb.accounts.Invitations(tb.ctx, cat.ID, "alpha"); return err })
	tb.refused("beta's owner issues a key for alpha's agent", app.ErrNotFound, "agent "+strconv.FormatInt(annAgent.ID, 10)+" not found in account alpha",
		func() error {
			_, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, dan.ID), "alpha", annAgent.ID)
			return err
		})
	invs, err := tb.accounts.Invitations(tb.ctx, ann.ID, "alpha")
	if err != nil || len(invs) != 1 || invs[0].ID != inv.ID || invs[0].RevokedAt != nil || !invs[0].SentAt.Equal(inv.SentAt) {
		t.Fatalf("alpha's invitations after the refusals: %+v %v", invs, err)
	}
	if keys, err := tb.accounts.ListAgentKeys(tb.ctx, "alpha", annAgent.ID); err != nil || len(keys) != 1 {
		t.Fatalf("the keys of alpha's agent after the refusals: %+v %v", keys, err)
	}
}

// TestTeamMemberAndAdminBounds: a member manages their own agent's keys,
// and does not see the seat of a colleague who left (the owners answer
// for it); an admin does not manage an invitation of an admin; a role
// must be one of the three, and someone outside the account does not
// list its members.
func TestTeamMemberAndAdminBounds(t *testing.T) {
	tb := setupTeams(t, 0, 0)
	ann, dan := tb.person("ann@example.test", true), tb.person("dan@example.test", true)
	if _, err := tb.accounts.SignUp(tb.ctx, ann.ID, "Alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.SignUp(tb.ctx, dan.ID, "Beta", "beta"); err != nil {
		t.Fatal(err)
	}
	people := map[string]app.User{}
	for _, p := range []struct {
		email string
		role  app.MemberRole
	}{{"cat@example.test", app.MemberRoleMember}, {"eve@example.test", app.MemberRoleMember}, {"ben@example.test", app.MemberRoleAdmin}} {
		people[p.email] = tb.person(p.email, true)
		if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", p.email, p.role); err != nil {
			t.Fatal(err)
		}
	}
	cat, eve, ben := people["cat@example.test"], people["eve@example.test"], people["ben@example.test"]
	catAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, cat.ID), "alpha", "Cat's agent", cat.Email)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.accounts.IssueAgentKey(app.AsActor(tb.ctx, cat.ID), "alpha", catAgent.ID); err != nil {
		t.Fatalf("a member issues a key for her own agent: %v", err)
	}
	eveAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, eve.ID), "alpha", "Eve's agent", eve.Email)
	if err != nil {
		t.Fatal(err)
	}
	danAgent, _, err := tb.accounts.CreateAgent(tb.ctx, "beta", "Dan's agent", dan.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, eveAgent, app.OpenInput{Schema: teamSchema, Title: "Eve's lunch"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, danAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.Leave(tb.ctx, eve.ID, "alpha"); err != nil {
		t.Fatal(err)
	}
	if h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, open.View.RoomID, negotiation.SideA, ""); err != nil || !h.SeatOrphaned {
		t.Fatalf("the seat eve left, for ann, alpha's owner: %+v %v", h, err)
	}
	tb.refused("a member opens the seat of a colleague who left", app.ErrNotFound, "room not found", func() error {
		_, err := tb.rooms.ForHuman(tb.ctx, cat.ID, open.View.RoomID, negotiation.SideA, "")
		return err
	})

	inv, err := tb.accounts.Invite(tb.ctx, ann.ID, "alpha", "second@example.test", app.MemberRoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	for what, do := range map[string]func() error{
		"revokes": func() error { return tb.accounts.RevokeInvitation(tb.ctx, ben.ID, "alpha", inv.ID) },
		"resends": func() error { return tb.accounts.ResendInvitation(tb.ctx, ben.ID, "alpha", inv.ID) },
	} {
		tb.refused("an admin "+what+" an admin's invitation", app.ErrUnauthorized,
			"role: only the account's owners manage an invitation of an owner or admin", do)
	}
	tb.refused("an empty role", app.ErrInvalid, `role: must be owner, admin or member (got "")`,
		func() error { return tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", cat.ID, "") })
	tb.refused("beta's owner lists alpha's members", app.ErrNotFound, `account: you are not a member of "alpha"`,
		func() error { _, _, err := tb.accounts.Members(tb.ctx, dan.ID, "alpha", ""); return err })

	// Once its deletion began, the account's owner no longer opens its
	// rooms' pages (the deletion closes them).
	if _, err := tb.rooms.DeleteAccount(tb.ctx, ann.ID, "alpha", "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.ForHuman(tb.ctx, ann.ID, open.View.RoomID, negotiation.SideA, ""); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("the room of an account being deleted, for its owner: %v", err)
	}
}
