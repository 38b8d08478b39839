package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
)

// Invitations to join an account. Owners and admins invite by email (only
// owners invite an owner or admin); a River job mails a link that works
// once, for 7 days, stored as its hash. The invitee signs in with the
// invited address, verified, and joins with the role. A wrong address is
// refused with the reason and leaves the invitation usable. A link that
// never existed is not found, the same for everyone (the link is the
// secret, so an expired, used or revoked one may say which it is).

// InvitationTTL is how long an invitation's link works.
const InvitationTTL = 7 * 24 * time.Hour

const invitationTokenPrefix = "tj_"

// MemberInvitation is an invitation to join an account.
type MemberInvitation struct {
	ID          int64
	AccountID   int64
	AccountSlug string
	AccountName string
	Email       string
	Role        MemberRole
	InvitedBy   string // the inviter's email ("" for an operator, or a user since erased)
	CreatedAt   time.Time
	SentAt      time.Time
	ExpiresAt   time.Time
	AcceptedAt  *time.Time
	RevokedAt   *time.Time
}

// InvitationStatus is where an invitation is.
type InvitationStatus string

const (
	InvitationPending  InvitationStatus = "pending"
	InvitationExpired  InvitationStatus = "expired"
	InvitationAccepted InvitationStatus = "accepted"
	InvitationRevoked  InvitationStatus = "revoked"
)

// Status is the invitation's state at now.
func (v MemberInvitation) Status(now time.Time) InvitationStatus {
	switch {
	case v.RevokedAt != nil:
		return InvitationRevoked
	case v.AcceptedAt != nil:
		return InvitationAccepted
	case !now.Before(v.ExpiresAt):
		return InvitationExpired
	}
	return InvitationPending
}

// refusal says why the link cannot be used, "" when it can.
func (v MemberInvitation) refusal(now time.Time) error {
	switch v.Status(now) {
	case InvitationRevoked:
		return refuse(ErrConflict, "error.invitation_revoked", "invitation: this link was revoked by the account; ask its owners for a new one")
	case InvitationAccepted:
		return refuse(ErrConflict, "error.invitation_used", "invitation: this link was already used to join %s", v.AccountName)
	case InvitationExpired:
		return refuse(ErrConflict, "error.invitation_expired", "invitation: this link expired on %s; ask the account's owners to send it again",
			Moment(v.ExpiresAt))
	}
	return nil
}

// errNoMemberInvitation answers a member invitation link that never existed
// or belongs to another account, alike.
var errNoMemberInvitation = refuse(ErrNotFound, "error.invitation_not_valid", "invitation: this link is not valid")

func (a *Accounts) teamsOn() error {
	if a.teams == nil {
		return refuse(ErrConflict, "error.invitations_off", "invitations are not set up in this process")
	}
	return nil
}

// Invite invites email to join the account with role, and mails the link.
func (a *Accounts) Invite(ctx context.Context, actorID int64, slug, email string, role MemberRole) (MemberInvitation, error) {
	if err := a.teamsOn(); err != nil {
		return MemberInvitation{}, err
	}
	if _, err := ParseRole(string(role)); err != nil {
		return MemberInvitation{}, err
	}
	email, err := normalizeEmail("email", email)
	if err != nil {
		return MemberInvitation{}, err
	}
	var inv MemberInvitation
	err = pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acctID, actor, err := a.lockedActor(ctx, tx, actorID, slug, false)
		if err != nil {
			return err
		}
		if !May(actor, ActManageMembers, Colleagues) {
			return refuse(ErrUnauthorized, "error.invite_who", "invitation: only the account's owners and admins invite")
		}
		if !May(actor, roleAction(role), Colleagues) {
			return refuse(ErrUnauthorized, "error.invite_role_who", "role: only the account's owners invite an owner or admin")
		}
		if member, err := selectIsMemberEmail(ctx, tx, acctID, email); err != nil {
			return err
		} else if member {
			return refuse(ErrConflict, "error.already_member", "email: %s is already a member of %s", email, slug)
		}
		if err := checkInviteRefused(ctx, tx, a.teams.emailKey, email); err != nil {
			return err
		}
		now := a.now()
		if err := a.checkMemberInviteCap(ctx, tx, acctID, now); err != nil {
			return err
		}
		token := newInvitationToken()
		id, err := insertInvitation(ctx, tx, acctID, email, role, secretHash(token), actorID, now, now.Add(InvitationTTL))
		if err != nil {
			return err
		}
		if err := a.mailInvitation(ctx, tx, acctID, id, actorID, email, token, now); err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, acctID, actorID, AuditMemberInvited, a.dbMoment(), map[string]string{"email": email, "role": string(role)}); err != nil {
			return err
		}
		inv, err = selectInvitation(ctx, tx, acctID, id, false)
		return err
	})
	if err != nil {
		return MemberInvitation{}, fmt.Errorf("invite: %w", err)
	}
	return inv, nil
}

// Invitations lists the account's invitations not accepted nor revoked.
func (a *Accounts) Invitations(ctx context.Context, actorID int64, slug string) ([]MemberInvitation, error) {
	acctID, err := a.authorize(ctx, a.pool, actorID, slug, ActManageMembers, false, refuse(ErrUnauthorized, "error.invitations_who", "invitation: only the account's owners and admins see invitations"))
	if err != nil {
		return nil, fmt.Errorf("invitations: %w", err)
	}
	out, err := selectPendingInvitations(ctx, a.pool, acctID)
	if err != nil {
		return nil, fmt.Errorf("invitations: %w", err)
	}
	return out, nil
}

// ResendInvitation mails a pending (or expired) invitation again, with a
// new link that works for 7 days; the old link stops working. The one who
// sends it again invites from then on: the mail names them, and their
// leaving or losing the role stops it (revokeSentInvitations).
func (a *Accounts) ResendInvitation(ctx context.Context, actorID int64, slug string, id int64) error {
	if err := a.teamsOn(); err != nil {
		return err
	}
	err := a.onInvitation(ctx, actorID, slug, id, func(tx pgx.Tx, inv MemberInvitation, now time.Time) error {
		if err := checkInviteRefused(ctx, tx, a.teams.emailKey, inv.Email); err != nil {
			return err
		}
		if err := a.checkMemberInviteCap(ctx, tx, inv.AccountID, now); err != nil {
			return err
		}
		token := newInvitationToken()
		if err := renewInvitation(ctx, tx, inv.AccountID, id, secretHash(token), now, now.Add(InvitationTTL), actorID); err != nil {
			return err
		}
		if err := a.mailInvitation(ctx, tx, inv.AccountID, id, actorID, inv.Email, token, now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, inv.AccountID, actorID, AuditInvitationResent, a.dbMoment(), map[string]string{"email": inv.Email, "role": string(inv.Role)})
	})
	if err != nil {
		return fmt.Errorf("resend invitation: %w", err)
	}
	return nil
}

// RevokeInvitation makes an invitation's link stop working.
func (a *Accounts) RevokeInvitation(ctx context.Context, actorID int64, slug string, id int64) error {
	err := a.onInvitation(ctx, actorID, slug, id, func(tx pgx.Tx, inv MemberInvitation, now time.Time) error {
		if err := revokeInvitation(ctx, tx, inv.AccountID, id, now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, inv.AccountID, actorID, AuditInvitationRevoked, a.dbMoment(), map[string]string{"email": inv.Email, "role": string(inv.Role)})
	})
	if err != nil {
		return fmt.Errorf("revoke invitation: %w", err)
	}
	return nil
}

// onInvitation runs do on the account's invitation id, under the
// account's members lock, if actorID may manage it and it was neither accepted nor revoked.
func (a *Accounts) onInvitation(ctx context.Context, actorID int64, slug string, id int64, do func(pgx.Tx, MemberInvitation, time.Time) error) error {
	return pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		acctID, actor, err := a.lockedActor(ctx, tx, actorID, slug, false)
		if err != nil {
			return err
		}
		if !May(actor, ActManageMembers, Colleagues) {
			return refuse(ErrUnauthorized, "error.invitations_manage_who", "invitation: only the account's owners and admins manage invitations")
		}
		inv, err := selectInvitation(ctx, tx, acctID, id, true)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.no_invitation", "invitation: no invitation %s in account %s", strconv.FormatInt(id, 10), slug)
		} else if err != nil {
			return err
		}
		if !May(actor, roleAction(inv.Role), Colleagues) {
			return refuse(ErrUnauthorized, "error.invitation_role_who", "role: only the account's owners manage an invitation of an owner or admin")
		}
		now := a.now()
		switch inv.Status(now) {
		case InvitationAccepted:
			return refuse(ErrConflict, "error.invitation_accepted", "invitation: %s already accepted it", inv.Email)
		case InvitationRevoked:
			return refuse(ErrConflict, "error.invitation_revoked_already", "invitation: it was revoked already")
		}
		return do(tx, inv, now)
	})
}

// InvitationByToken is the invitation a link opens, whatever its status.
func (a *Accounts) InvitationByToken(ctx context.Context, token string) (MemberInvitation, error) {
	if !validInvitationToken(token) {
		return MemberInvitation{}, errNoMemberInvitation
	}
	inv, err := selectInvitationByToken(ctx, a.pool, secretHash(token), false)
	if errors.Is(err, pgx.ErrNoRows) {
		return MemberInvitation{}, errNoMemberInvitation
	}
	if err != nil {
		return MemberInvitation{}, fmt.Errorf("invitation by token: %w", err)
	}
	return inv, nil
}

// RefusalFor is why u may not join with the invitation (nil: they may,
// as far as who they are goes): it is for another address, or theirs is
// not verified. AcceptInvitation refuses with it; the join page says it
// before anyone presses Join.
func (inv MemberInvitation) RefusalFor(u User) error {
	if u.Email != inv.Email {
		return refuse(ErrUnauthorized, "error.invitation_other_address", "email: this invitation is for another address than %s; sign out and sign in with the address it was sent to", u.Email)
	}
	if !u.EmailVerified {
		return refuse(ErrUnauthorized, "error.join_unverified", "email: your identity provider has not verified %s; only a verified address may join an account", u.Email)
	}
	return nil
}

// AcceptInvitation makes userID a member with the invitation's role. The
// user's email must be the invited one, and verified; otherwise nothing
// changes and the link keeps working.
func (a *Accounts) AcceptInvitation(ctx context.Context, userID int64, token string) (Membership, error) {
	if !validInvitationToken(token) {
		return Membership{}, errNoMemberInvitation
	}
	var m Membership
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		inv, err := selectInvitationByToken(ctx, tx, secretHash(token), true)
		if errors.Is(err, pgx.ErrNoRows) {
			return errNoMemberInvitation
		} else if err != nil {
			return err
		}
		now := a.now()
		if err := inv.refusal(now); err != nil {
			return err
		}
		u, err := selectUserKept(ctx, tx, userID, false)
		if errors.Is(err, pgx.ErrNoRows) {
			return refuse(ErrNotFound, "error.profile_gone", "profile: there is no such person (deleted already?)")
		} else if err != nil {
			return err
		}
		if err := inv.RefusalFor(u); err != nil {
			return err
		}
		added, err := insertMembershipIfNone(ctx, tx, inv.AccountID, userID, inv.Role)
		if err != nil {
			return err
		}
		if !added {
			return refuse(ErrConflict, "error.already_member_of", "invitation: you are already a member of %s", inv.AccountName)
		}
		if err := acceptInvitation(ctx, tx, inv.AccountID, inv.ID, userID, now); err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, inv.AccountID, userID, AuditMemberJoined, a.dbMoment(), map[string]string{"email": u.Email, "role": string(inv.Role)}); err != nil {
			return err
		}
		m, err = selectMembershipByID(ctx, tx, userID, inv.AccountID)
		return err
	})
	if err != nil {
		return Membership{}, fmt.Errorf("accept invitation: %w", err)
	}
	return m, nil
}

// checkMemberInviteCap refuses an invitation mail past the account's cap
// (INVITE_EMAIL_DAILY_CAP, as for rooms' invitations: the account's row
// is locked until the transaction ends, so concurrent invitations count
// each other).
func (a *Accounts) checkMemberInviteCap(ctx context.Context, tx pgx.Tx, accountID int64, now time.Time) error {
	if a.teams.inviteCap <= 0 {
		return nil
	}
	if err := lockAccountMembers(ctx, tx, accountID); err != nil {
		return err
	}
	at, err := nthLatestMemberInviteEmail(ctx, tx, accountID, now.Add(-inviteCapWindow), a.teams.inviteCap)
	if err != nil || at.IsZero() {
		return err
	}
	return refuse(ErrConflict, "error.invite_cap", plural(a.teams.inviteCap,
		"email: this account has sent %d invitation in the last 24 hours, the most allowed; nothing was sent. Try again from %s",
		"email: this account has sent %d invitations in the last 24 hours, the most allowed; nothing was sent. Try again from %s"),
		a.teams.inviteCap, Moment(at.Add(inviteCapWindow)))
}

// mailInvitation inserts the mail's job with the link sealed, and counts it
// (with a cap).
func (a *Accounts) mailInvitation(ctx context.Context, tx pgx.Tx, accountID, id, inviterID int64, to, token string, now time.Time) error {
	sealed := seal(a.teams.seal, []byte(token), memberInviteAD(id))
	res, err := a.teams.river.InsertTx(ctx, tx, jobs.MemberInviteArgs{AccountID: accountID, InvitationID: id, To: to, Token: sealed,
		UserID: inviterID}, nil)
	if err != nil {
		return fmt.Errorf("insert invitation job: %w", err)
	}
	if a.teams.inviteCap > 0 { // no cap: nothing counts them
		if err := insertMemberInviteEmail(ctx, tx, accountID, id, now); err != nil {
			return err
		}
	}
	if inviterID == 0 {
		return nil
	}
	return insertQueued(ctx, tx, []delivery{{Notice: jobs.Notice{Topic: jobs.TopicMemberInvite, UserID: inviterID},
		JobID: res.Job.ID, Channel: jobs.ChannelEmail, Recipient: to}}, a.dbMoment())
}

func memberInviteAD(id int64) []byte { return []byte("member-invite\x00" + strconv.FormatInt(id, 10)) }

// MemberInviteMail is what an invitation's mail says now; an invitation no
// longer pending, or whose link was replaced, is skipped.
func (a *Accounts) MemberInviteMail(ctx context.Context, args jobs.MemberInviteArgs) (*jobs.MemberInvite, error) {
	if err := a.teamsOn(); err != nil {
		return nil, err
	}
	token, err := unseal(a.teams.seal, args.Token, memberInviteAD(args.InvitationID))
	if err != nil {
		return nil, jobs.Skip("the invitation's link cannot be read (was SECRET_KEY changed?)")
	}
	inv, err := selectInvitationByToken(ctx, a.pool, secretHash(string(token)), false)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, jobs.Skip("the invitation was re-sent with a new link, or no longer exists")
	}
	if err != nil {
		return nil, err
	}
	now := a.now()
	if inv.ID != args.InvitationID || inv.Status(now) != InvitationPending {
		return nil, jobs.Skip("the invitation is " + string(inv.Status(now)))
	}
	if refused, err := selectInviteRefused(ctx, a.pool, emailHashes(a.teams.emailKey, inv.Email)); err != nil {
		return nil, err
	} else if refused {
		return nil, jobs.Skip("the address refused invitations from Taasky")
	}
	var refuseURL string
	if a.teams.unsubKey != nil {
		refuseURL = refuseInvitationsURL(a.teams.unsubKey, a.teams.baseURL, inv.Email)
	}
	lang, zone, err := selectInviteReader(ctx, a.pool, inv.Email, args.UserID)
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	return &jobs.MemberInvite{ID: "taasky.member-invite." + strconv.FormatInt(inv.ID, 10) + "." + strconv.FormatInt(inv.SentAt.UnixMilli(), 10),
		To: inv.Email, Now: now, AccountName: inv.AccountName, InvitedBy: inv.InvitedBy, Role: string(inv.Role),
		URL: a.teams.baseURL + "/join/" + string(token), ExpiresAt: inv.ExpiresAt, Lang: lang, TimeZone: loc,
		RefuseURL: refuseURL}, nil
}

var _ jobs.MemberInvitations = (*Accounts)(nil)

func newInvitationToken() string {
	return invitationTokenPrefix + base64.RawURLEncoding.EncodeToString(randomBytes(32))
}

func validInvitationToken(token string) bool {
	return len(token) == len(invitationTokenPrefix)+43 && token[:len(invitationTokenPrefix)] == invitationTokenPrefix
}
