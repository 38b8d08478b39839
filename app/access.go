package app

import "context"

// Who may do what in an account is decided here, and only here: a pure
// function of the actor's role, the action, and whose the thing acted on
// is. Every dashboard route and service call that acts for a signed-in
// person asks May (the SQL of the lists is given the accounts May lets a
// person see whole, and those where only their own rooms show).
//
//	action          owner           admin           member
//	see a room      every           every           their agents'
//	answer a conf.  theirs, nobody's theirs         theirs
//	manage agent    every           every           their own
//	create agent    yes             yes             yes
//	manage members  yes             yes (members)   no
//	change roles    yes             no              no
//	see audit log   yes             yes             no
//	rename, export  yes             yes             no
//	manage webhooks yes             yes             no
//	delete account  yes             no              no
//
// "nobody's" is a seat whose human left the account (or was removed):
// its confirmations go to the owners.

// Action is something a member may be allowed to do in their account.
type Action string

const (
	// ActSeeRoom: read a room of the account (its page, its live events).
	ActSeeRoom Action = "see_room"
	// ActDecide: release (confirm or decline) a side's pending confirmation.
	ActDecide Action = "decide"
	// ActManageAgent: issue and revoke an agent's keys.
	ActManageAgent Action = "manage_agent"
	// ActCreateAgent: create an agent of one's own.
	ActCreateAgent Action = "create_agent"
	// ActManageMembers: invite (resend, revoke invitations), remove a
	// member whose role is member.
	ActManageMembers Action = "manage_members"
	// ActChangeRoles: change a role; invite or remove an owner or admin.
	ActChangeRoles Action = "change_roles"
	// ActSeeAudit: read the account's audit log.
	ActSeeAudit Action = "see_audit"
	// ActManageAccount: rename the account, export its rooms and log.
	ActManageAccount Action = "manage_account"
	// ActDeleteAccount: delete the account and everything of its side.
	ActDeleteAccount Action = "delete_account"
	// ActManageWebhooks: add, rotate and delete the account's webhook
	// endpoints, read their delivery log, send a message again.
	ActManageWebhooks Action = "manage_webhooks"
)

// Whose says who the thing acted on belongs to, seen from the actor.
type Whose int

const (
	// Mine: the actor's own (their agent's seat, their agent).
	Mine Whose = iota
	// Colleagues: another member's.
	Colleagues
	// Nobodys: its human is no longer a member of the account.
	Nobodys
)

// MemberRoleAdmin sees every room and manages members and agents, but does
// not change roles nor answer for others.
const MemberRoleAdmin MemberRole = "admin"

// May reports whether a member with role may do act on a thing that is
// whose. A role that is not one of the three may do nothing.
func May(role MemberRole, act Action, whose Whose) bool {
	lead := role == MemberRoleOwner || role == MemberRoleAdmin
	switch role {
	case MemberRoleOwner, MemberRoleAdmin, MemberRoleMember:
	default:
		return false
	}
	switch act {
	case ActSeeRoom, ActManageAgent:
		return whose == Mine || lead
	case ActDecide:
		return whose == Mine || (whose == Nobodys && role == MemberRoleOwner)
	case ActCreateAgent:
		return true
	case ActManageMembers, ActSeeAudit, ActManageAccount, ActManageWebhooks:
		return lead
	case ActChangeRoles, ActDeleteAccount:
		return role == MemberRoleOwner
	}
	return false
}

// whoseOf says whose a thing owned by owner (0: nobody) is for userID.
func whoseOf(owner, userID int64) Whose {
	switch {
	case owner == 0:
		return Nobodys
	case owner == userID:
		return Mine
	}
	return Colleagues
}

// WhoseOf is whoseOf for the adapters: owner 0 is nobody's.
func WhoseOf(owner, userID int64) Whose { return whoseOf(owner, userID) }

// ParseRole reads a role as a form or flag gives it.
func ParseRole(s string) (MemberRole, error) {
	switch r := MemberRole(s); r {
	case MemberRoleOwner, MemberRoleAdmin, MemberRoleMember:
		return r, nil
	}
	return "", refuse(ErrInvalid, "error.role", "role: must be owner, admin or member (got %q)", s)
}

// ManageAction is what acting on a person of role asks of May: inviting,
// removing or managing the invitation of an owner or admin is
// ActChangeRoles (owners), of a member ActManageMembers.
func ManageAction(role MemberRole) Action { return roleAction(role) }

func roleAction(role MemberRole) Action {
	if role == MemberRoleMember {
		return ActManageMembers
	}
	return ActChangeRoles
}

// roomScope is what a person's room lists cover: every room of the
// accounts in whole, the rooms of their own seats in own.
type roomScope struct {
	whole, own []int64
}

// scopeOf asks May, for each of userID's memberships, whether they see the
// account's rooms whole or their own seats' only.
func scopeOf(ctx context.Context, q querier, userID int64) (roomScope, error) {
	ms, err := selectMemberships(ctx, q, userID)
	if err != nil {
		return roomScope{}, err
	}
	sc := roomScope{whole: []int64{}, own: []int64{}}
	for _, m := range ms {
		if May(m.Role, ActSeeRoom, Colleagues) {
			sc.whole = append(sc.whole, m.AccountID)
		} else if May(m.Role, ActSeeRoom, Mine) {
			sc.own = append(sc.own, m.AccountID)
		}
	}
	return sc, nil
}
