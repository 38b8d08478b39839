package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// Teams: an account's members and their roles (owner, admin, member; what
// each may do is access.go's), invitations by email, role changes,
// removals and leaving. A removed member (or one who leaves) loses their
// agents' keys, their agents' OAuth grants and every session at once; the
// rooms their agents sit in stay open, and those rooms' confirmations go
// to the account's owners, with a note on each room's timeline.

// Member is a person of an account, as its members list shows them.
type Member struct {
	UserID int64
	Email  string
	Role   MemberRole
	Since  time.Time
}

// RoomNote is an entry of a side's timeline that is not a move: e.g.
// "member_left" (Email left the account; its owners answer now).
type RoomNote struct {
	At    time.Time
	Kind  string
	Email string
}

// seatAccess is a seat of a room in an account of the viewer, with the
// viewer's role there and the seat's human (0: nobody).
type seatAccess struct {
	Side       string
	Role       MemberRole
	Owner      int64
	OwnerEmail string
}

// TeamsConfig is what sign-up and invitations need beyond the pool.
type TeamsConfig struct {
	// River inserts the invitation mails' jobs (jobs.MemberInviteArgs).
	River *river.Client[pgx.Tx]
	// SealKey (32 bytes) seals an invitation's link in its job's
	// arguments: River's tables must not hold a link that works.
	SealKey []byte
	// BaseURL is the service's public URL, for the links in the mails.
	BaseURL string
	// SignupDailyCap is how many accounts one person may create in any 24
	// hours (SIGNUP_DAILY_CAP); 0: no cap.
	SignupDailyCap int
	// InviteDailyCap is how many invitation mails one account may send in
	// any 24 hours (INVITE_EMAIL_DAILY_CAP, the cap of room invitations,
	// counted apart); 0: no cap.
	InviteDailyCap int
	// UnsubscribeKey (NotificationsConfig's, config.Config.Key("unsubscribe"))
	// signs the link in an invitation mail that refuses every further
	// invitation from Taasky (Notifications.RefuseInvitationsURL); nil:
	// the mail has no such link (the refusals still hold).
	UnsubscribeKey []byte
	// RoomTokenKey is RoomsConfig's TokenKey: the hashes kept of the
	// addresses that refused invitations and of the sign-ups are keyed
	// with a key derived from it (emailHash), as the rooms' and the
	// notifications' are.
	RoomTokenKey []byte
	// PreviousSealKey and PreviousRoomTokenKey are SealKey and
	// RoomTokenKey under SECRET_KEY_PREVIOUS during a rotation of
	// SECRET_KEY (nil: none): what was sealed or keyed with them still
	// opens and is found.
	PreviousSealKey, PreviousRoomTokenKey []byte
	// RetiredEmailKeys are the keys of addresses' hashes kept from the
	// SECRET_KEYs rotated before (RetiredEmailKeys).
	RetiredEmailKeys [][]byte
	Now              func() time.Time // nil: time.Now
}

// teams is TeamsConfig, ready.
type teams struct {
	river     *river.Client[pgx.Tx]
	seal      sealKeys
	baseURL   string
	signupCap int
	inviteCap int
	unsubKey  []byte
	emailKey  emailKeys
}

// UseTeams turns on sign-up and invitations (cmd/taasky does, once the
// River client exists). Without it they are refused as not set up.
func (a *Accounts) UseTeams(c TeamsConfig) error {
	if c.River == nil {
		return errors.New("teams: River is required")
	}
	if len(c.RoomTokenKey) < 32 {
		return errors.New("teams: room token key: at least 32 bytes")
	}
	aead, err := newSealKeys(c.SealKey, c.PreviousSealKey)
	if err != nil {
		return fmt.Errorf("teams: seal key: must be 32 bytes (%v)", err)
	}
	if c.Now != nil {
		a.now = c.Now
	}
	a.teams = &teams{river: c.River, seal: aead, baseURL: c.BaseURL, signupCap: c.SignupDailyCap, inviteCap: c.InviteDailyCap,
		unsubKey: c.UnsubscribeKey, emailKey: newEmailKeys(c.RoomTokenKey, c.PreviousRoomTokenKey, c.RetiredEmailKeys...)}
	return nil
}

// memberOf is userID's membership in the account with slug; an account
// they are not in is not found, whether it exists or not.
func (a *Accounts) memberOf(ctx context.Context, q querier, userID int64, slug string) (Membership, error) {
	m, err := selectMembership(ctx, q, userID, slug)
	if errors.Is(err, pgx.ErrNoRows) {
		if d, deleting, derr := selectMembershipForDeletion(ctx, q, userID, slug); derr == nil && deleting {
			return Membership{}, refuse(ErrNotFound, "lv17_error.account_deleting",
				"account: %s is being deleted; its open rooms are being closed, and nothing more can be done in it", d.AccountName)
		}
		return Membership{}, refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
	}
	return m, err
}

// DeletingAccounts names the accounts userID is a member of that are being
// deleted (their memberships give nothing of them any more), by slug.
func (a *Accounts) DeletingAccounts(ctx context.Context, userID int64) ([]string, error) {
	names, err := selectDeletingAccountNames(ctx, a.pool, userID)
	if err != nil {
		return nil, fmt.Errorf("deleting accounts: %w", err)
	}
	return names, nil
}

// Membership returns userID's membership in the account with slug.
func (a *Accounts) Membership(ctx context.Context, userID int64, slug string) (Membership, error) {
	m, err := a.memberOf(ctx, a.pool, userID, slug)
	if err != nil {
		return Membership{}, fmt.Errorf("membership: %w", err)
	}
	return m, nil
}

// MembersPageSize is how many members a page of the members list holds.
const MembersPageSize = 50

// Members lists a page of the account's members, owners first, then
// admins, then members, each by address; any member may. cursor is ""
// for the first page, or the next one a page gave ("" after the last).
func (a *Accounts) Members(ctx context.Context, actorID int64, slug, cursor string) ([]Member, string, error) {
	m, err := a.memberOf(ctx, a.pool, actorID, slug)
	if err != nil {
		return nil, "", fmt.Errorf("members: %w", err)
	}
	rank, email := -1, ""
	if cursor != "" {
		r, e, ok := strings.Cut(cursor, ":")
		if rank, err = strconv.Atoi(r); !ok || err != nil || rank < 0 || rank > 2 || e == "" {
			return nil, "", refuse(ErrInvalid, "big16_cursor_members", "cursor: not one this list of members gave (start again from the first page)")
		}
		email = e
	}
	out, err := selectMembers(ctx, a.pool, m.AccountID, rank, email, MembersPageSize+1)
	if err != nil {
		return nil, "", fmt.Errorf("members: %w", err)
	}
	next := ""
	if len(out) > MembersPageSize {
		out = out[:MembersPageSize]
		last := out[MembersPageSize-1]
		next = strconv.Itoa(roleRank(last.Role)) + ":" + last.Email
	}
	return out, next, nil
}

// roleRank is a role's place in the members list (memberRank).
func roleRank(r MemberRole) int {
	switch r {
	case MemberRoleOwner:
		return 0
	case MemberRoleAdmin:
		return 1
	}
	return 2
}

// ChangeRole sets a member's role. Owners may; the last owner cannot be
// demoted.
func (a *Accounts) ChangeRole(ctx context.Context, actorID int64, slug string, userID int64, role MemberRole) error {
	return a.changeRole(ctx, actorID, slug, userID, role, false)
}

// ChangeRoleAsOperator is ChangeRole for an operator on the command line.
func (a *Accounts) ChangeRoleAsOperator(ctx context.Context, slug, email string, role MemberRole) error {
	u, err := a.UserByEmail(ctx, email)
	if err != nil {
		return err
	}
	return operatorNoMember(a.changeRole(ctx, 0, slug, u.ID, role, true), "change role", u.Email, slug)
}

// operatorNoMember says the refusal "error.no_member" (which names the
// member by the id the dashboard passes) by the email the operator typed,
// as `taasky account operator` does; any other err is returned as is.
func operatorNoMember(err error, op, email, slug string) error {
	if e, ok := errors.AsType[*Error](err); ok && e.Key == "error.no_member" {
		return fmt.Errorf("%s: %w", op, Errorf(ErrNotFound, "%s is not a member of %s", email, slug))
	}
	return err
}

func (a *Accounts) changeRole(ctx context.Context, actorID int64, slug string, userID int64, role MemberRole, operator bool) error {
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	var forget [][]byte
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acctID, actor, err := a.lockedActor(ctx, tx, actorID, slug, operator)
		if err != nil {
			return err
		}
		if !May(actor, ActChangeRoles, Colleagues) {
			return refuse(ErrUnauthorized, "error.roles_who", "role: only the account's owners change roles")
		}
		target, err := selectMembershipByID(ctx, tx, userID, acctID)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.no_member", "member: no member %s in account %s", strconv.FormatInt(userID, 10), slug)
		} else if err != nil {
			return err
		}
		if target.Role == role {
			return nil
		}
		if target.Role == MemberRoleOwner {
			if err := a.notLastOwner(ctx, tx, acctID, refuse(ErrConflict, "error.last_owner_demote", "role: the account's last owner cannot be demoted; make another member owner first")); err != nil {
				return err
			}
		}
		if err := updateRole(ctx, tx, acctID, userID, role); err != nil {
			return err
		}
		if !May(role, ActManageAgent, Colleagues) {
			// The keys they issued for colleagues' agents: they may still hold them.
			if forget, err = revokeMemberKeys(ctx, tx, acctID, userID, a.now(), false); err != nil {
				return err
			}
		}
		if !May(role, ActDecide, Nobodys) {
			// The links they were sent to answer for a seat handed to the
			// owners answer no more.
			if err := stopHandedLinks(ctx, tx, acctID, userID, a.now(), LinkStoppedRole); err != nil {
				return err
			}
		}
		email, err := selectUserEmail(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, acctID, actorID, AuditRoleChanged, a.dbMoment(),
			map[string]string{"email": email, "from": string(target.Role), "to": string(role), "keys_revoked": fmt.Sprint(len(forget))}); err != nil {
			return err
		}
		return revokeSentInvitations(ctx, tx, acctID, actorID, userID, role, a.now(), a.dbMoment())
	})
	if err != nil {
		return fmt.Errorf("change role: %w", err)
	}
	for _, h := range forget {
		a.keys.forgetHash(h)
	}
	return nil
}

// authorize checks that actorID may act on the account with slug (or
// that an operator acts), and returns the account's id.
func (a *Accounts) authorize(ctx context.Context, q querier, actorID int64, slug string, act Action, operator bool, refusal *Error) (int64, error) {
	if operator {
		acct, err := selectAccountBySlug(ctx, q, slug)
		return acct.ID, err
	}
	m, err := a.memberOf(ctx, q, actorID, slug)
	if err != nil {
		return 0, err
	}
	if !May(m.Role, act, Colleagues) {
		return 0, refusal
	}
	return m.AccountID, nil
}

// lockedActor takes the account's members lock for a change by actorID
// and returns the account's id and the actor's role as it stands once
// the lock is held: a demotion or removal that committed while this
// waited holds, and the audit log's order is the order things took
// effect in. An operator acts as an owner.
func (a *Accounts) lockedActor(ctx context.Context, tx pgx.Tx, actorID int64, slug string, operator bool) (int64, MemberRole, error) {
	var acctID int64
	if operator {
		acct, err := selectAccountBySlug(ctx, tx, slug)
		if err != nil {
			return 0, "", err
		}
		acctID = acct.ID
	} else {
		m, err := a.memberOf(ctx, tx, actorID, slug)
		if err != nil {
			return 0, "", err
		}
		acctID = m.AccountID
	}
	if err := lockAccountMembers(ctx, tx, acctID); err != nil {
		return 0, "", err
	}
	if operator {
		return acctID, MemberRoleOwner, nil
	}
	m, err := selectMembershipByID(ctx, tx, actorID, acctID)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", refuse(ErrNotFound, "error.not_member", "account: you are not a member of %q", slug)
	}
	return acctID, m.Role, err
}

// notLastOwner refuses with refusal when the account has one owner or none.
func (a *Accounts) notLastOwner(ctx context.Context, q querier, accountID int64, refusal *Error) error {
	n, err := countOwners(ctx, q, accountID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return refusal
	}
	return nil
}

// RemoveMember removes a member from the account: owners remove anyone,
// admins remove members; the last owner cannot be removed. See leave.
func (a *Accounts) RemoveMember(ctx context.Context, actorID int64, slug string, userID int64) error {
	return a.remove(ctx, actorID, slug, userID, false)
}

// RemoveMemberAsOperator is RemoveMember for an operator on the command line.
func (a *Accounts) RemoveMemberAsOperator(ctx context.Context, slug, email string) error {
	u, err := a.UserByEmail(ctx, email)
	if err != nil {
		return err
	}
	return operatorNoMember(a.remove(ctx, 0, slug, u.ID, true), "remove member", u.Email, slug)
}

// Leave takes userID out of the account, as RemoveMember does.
func (a *Accounts) Leave(ctx context.Context, userID int64, slug string) error {
	return a.remove(ctx, userID, slug, userID, false)
}

func (a *Accounts) remove(ctx context.Context, actorID int64, slug string, userID int64, operator bool) error {
	var forget [][]byte
	var rooms []int64 // the rooms whose seats passed to the owners, for their live pages
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acctID, actor, err := a.lockedActor(ctx, tx, actorID, slug, operator)
		if err != nil {
			return err
		}
		target, err := selectMembershipByID(ctx, tx, userID, acctID)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.no_member", "member: no member %s in account %s", strconv.FormatInt(userID, 10), slug)
		} else if err != nil {
			return err
		}
		if actorID != userID {
			if !May(actor, roleAction(target.Role), Colleagues) || !May(actor, ActManageMembers, Colleagues) {
				return refuse(ErrUnauthorized, "error.remove_who", "member: only the account's owners remove an owner or admin, and owners and admins a member")
			}
		}
		if target.Role == MemberRoleOwner {
			last := refuse(ErrConflict, "error.last_owner_remove", "member: the account's last owner cannot be removed; make another member owner first")
			if actorID == userID {
				last = refuse(ErrConflict, "error.last_owner_leave", "member: you are the account's last owner and cannot leave it; make another member owner first")
			}
			if err := a.notLastOwner(ctx, tx, acctID, last); err != nil {
				return err
			}
		}
		now := a.now()
		if forget, err = revokeMemberKeys(ctx, tx, acctID, userID, now, true); err != nil {
			return err
		}
		disconnected, err := disconnectMemberOAuthAgents(ctx, tx, acctID, userID, now)
		if err != nil {
			return err
		}
		seats, err := orphanSeats(ctx, tx, acctID, userID, now)
		if err != nil {
			return err
		}
		// The membership goes before their handed-over links stop: a
		// link being issued to them holds the row FOR SHARE
		// (notificationOneTapSQL), and is waited for here, then stopped
		// below; stopped first, a link stored meanwhile stayed live.
		if err := deleteMembership(ctx, tx, acctID, userID); err != nil {
			return err
		}
		if err := stopHandedLinks(ctx, tx, acctID, userID, now, LinkStoppedLeft); err != nil {
			return err
		}
		rooms = rooms[:0]
		for _, s := range seats {
			rooms = append(rooms, s.RoomID)
		}
		email, err := selectUserEmail(ctx, tx, userID)
		if err != nil {
			return err
		}
		if err := a.askOwners(ctx, tx, acctID, seats, now); err != nil {
			return err
		}
		if err := deleteUserSessions(ctx, tx, userID); err != nil {
			return err
		}
		action := AuditMemberRemoved
		if actorID == userID {
			action = AuditMemberLeft
		}
		if err := insertAudit(ctx, tx, acctID, actorID, action, a.dbMoment(), map[string]string{"email": email, "role": string(target.Role),
			"keys_revoked": fmt.Sprint(len(forget)), "agents_disconnected": fmt.Sprint(disconnected), "rooms_handed_to_owners": fmt.Sprint(len(seats))}); err != nil {
			return err
		}
		return revokeSentInvitations(ctx, tx, acctID, actorID, userID, "", now, a.dbMoment())
	})
	if err != nil {
		return fmt.Errorf("remove member: %w", err)
	}
	for _, h := range forget {
		a.keys.forgetHash(h)
	}
	if len(rooms) == 0 {
		return nil
	}
	if err := announceRooms(ctx, a.pool, rooms); err != nil {
		// The removal stands; a live page shows it at its next change.
		slog.Warn("live pages not told of a removal", "rooms", len(rooms), "err", err)
	}
	return nil
}

// revokeSentInvitations revokes the invitations userID sent that role no
// longer lets them send (every one for role "": they left the account),
// each in the audit log as actorID's revocation: the link the invitee
// holds carried its sender's authority, which ended (as the keys they
// issued for colleagues' agents, revokeMemberKeys). An invitation someone
// else sent again is theirs (ResendInvitation) and goes on. The entries
// are at audited (insertAudit).
func revokeSentInvitations(ctx context.Context, tx pgx.Tx, acctID, actorID, userID int64, role MemberRole, now time.Time, audited *time.Time) error {
	var roles []string
	for _, r := range []MemberRole{MemberRoleOwner, MemberRoleAdmin, MemberRoleMember} {
		if !May(role, ActManageMembers, Colleagues) || !May(role, roleAction(r), Colleagues) {
			roles = append(roles, string(r))
		}
	}
	if len(roles) == 0 {
		return nil
	}
	revoked, err := revokeInvitationsBy(ctx, tx, acctID, userID, roles, now)
	if err != nil {
		return err
	}
	for _, inv := range revoked {
		if err := insertAudit(ctx, tx, acctID, actorID, AuditInvitationRevoked, audited,
			map[string]string{"email": inv.Email, "role": string(inv.Role)}); err != nil {
			return err
		}
	}
	return nil
}

// askOwners sends the account's owners a request for each pending
// confirmation of the seats a removed member answered for: they answer
// them now (access.go), and the request says why it came to them. Without
// teams (an operator's command line) nothing is sent: the confirmations
// wait on the owners' dashboards.
func (a *Accounts) askOwners(ctx context.Context, tx pgx.Tx, accountID int64, seats []seatRef, now time.Time) error {
	if a.teams == nil || len(seats) == 0 {
		return nil
	}
	pending, err := selectSeatsPending(ctx, tx, seats)
	if err != nil || len(pending) == 0 {
		return err
	}
	owners, err := selectOwnerIDs(ctx, tx, accountID)
	if err != nil {
		return err
	}
	var notices []jobs.Notice
	for _, p := range pending {
		for _, o := range owners {
			notices = append(notices, jobs.Notice{Topic: jobs.TopicRequest, RoomID: p.RoomID, Side: negotiation.Side(p.Side),
				UserID: o, ConfirmationID: p.ID})
		}
	}
	return enqueueNotices(ctx, tx, nil, a.teams.river, now, notices, nil, "")
}

// AddMemberAsOperator makes email a member of the account with role,
// creating the user by email (linked at their first sign-in), as
// `taasky member add` does. An existing member is a conflict.
func (a *Accounts) AddMemberAsOperator(ctx context.Context, slug, email string, role MemberRole) error {
	if _, err := ParseRole(string(role)); err != nil {
		return err
	}
	email, err := normalizeEmail("email", email)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acct, err := selectAccountBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		userID, err := ensureUserByEmail(ctx, tx, email)
		if err != nil {
			return err
		}
		added, err := insertMembershipIfNone(ctx, tx, acct.ID, userID, role)
		if err != nil {
			return err
		}
		if !added {
			return refuse(ErrConflict, "error.already_member", "email: %s is already a member of %s", email, slug)
		}
		return insertAudit(ctx, tx, acct.ID, 0, AuditMemberAdded, a.dbMoment(), map[string]string{"email": email, "role": string(role)})
	})
	if err != nil {
		return fmt.Errorf("add member: %w", err)
	}
	return nil
}
