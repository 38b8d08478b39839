package dashboard

import (
	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
)

// membersData is an account's members page.
type membersData struct {
	M           app.Membership
	Members     []memberRow
	Next        string // the next page of members' cursor; "" on the last
	YouHere     bool   // the viewer's own row is on this page (with its Leave)
	Invitations []invitationRow
	Manage      bool // may invite and remove members (owners, admins)
	Roles       bool // may change roles (owners)
	Roleset     []app.MemberRole
	Error       string
	Notice      string
	Email       string // the invite form's address, as typed
	Role        string // the invite form's role, as chosen
	EmailWrong  bool   // Error is about that address: the field is marked and focused
}

type memberRow struct {
	app.Member
	You       bool
	MayRemove bool
}

type invitationRow struct {
	app.MemberInvitation
	Status app.InvitationStatus
	Manage bool
}

var membersNotices = map[string]locale.Key{
	"invited": "members.done.invited",
	"resent":  "members.done.resent",
	"revoked": "members.done.revoked",
	"role":    "members.done.role",
	"removed": "members.done.removed",
}

// membersShow lists the account's members and pending invitations, with
// the forms the viewer may use.
func (d *Dashboard) membersShow(c *fiber.Ctx) error {
	v, done := d.requireViewer(c)
	if v == nil {
		return done
	}
	return d.membersPage(c, v, c.Params("slug"), membersData{Notice: d.doneNotice(c, v, membersNotices)})
}

func (d *Dashboard) membersPage(c *fiber.Ctx, v *viewer, slug string, data membersData) error {
	ctx := c.UserContext()
	m, err := d.accounts.Membership(ctx, v.user.ID, slug)
	if err != nil {
		return d.fail(c, err)
	}
	data.M = m
	data.Manage = app.May(m.Role, app.ActManageMembers, app.Colleagues)
	data.Roles = app.May(m.Role, app.ActChangeRoles, app.Colleagues)
	data.Roleset = []app.MemberRole{app.MemberRoleMember, app.MemberRoleAdmin, app.MemberRoleOwner}
	members, next, err := d.accounts.Members(ctx, v.user.ID, slug, c.Query("cursor"))
	if err != nil {
		return d.fail(c, err)
	}
	data.Next = next
	for _, mem := range members {
		r := memberRow{Member: mem, You: mem.UserID == v.user.ID}
		data.YouHere = data.YouHere || r.You
		r.MayRemove = !r.You && app.May(m.Role, app.ManageAction(mem.Role), app.Colleagues)
		data.Members = append(data.Members, r)
	}
	if data.Manage {
		invs, err := d.accounts.Invitations(ctx, v.user.ID, slug)
		if err != nil {
			return d.fail(c, err)
		}
		for _, inv := range invs {
			data.Invitations = append(data.Invitations, invitationRow{MemberInvitation: inv, Status: inv.Status(d.now()),
				Manage: app.May(m.Role, app.ManageAction(inv.Role), app.Colleagues)})
		}
	}
	return d.renderPage(c, "members", &page{Title: d.words(c, v).T("members.title", m.AccountName), Data: data}, v)
}

// membersRefused shows the members page with the refusal's message, or
// the error page when the viewer may not see the account at all.
func (d *Dashboard) membersRefused(c *fiber.Ctx, v *viewer, slug string, err error, data membersData) error {
	code := app.ErrorCodeOf(err)
	if code == app.ErrInternal {
		return d.fail(c, err)
	}
	c.Status(statusOf(code))
	data.Error = d.say(c, v, err)
	data.EmailWrong = data.Email != "" && refusedField(err) == "email"
	return d.membersPage(c, v, slug, data)
}
