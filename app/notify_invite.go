package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// An agent may ask, at the open, that Taasky email the invitation
// (negotiation_open's invite_email). The job is inserted in the open's
// transaction and carries the invitation's code sealed with the limits key:
// only its hash is stored with the room, and River's tables (and the River
// UI operators see) must not hold a code that opens the room.
//
// invite_email makes Taasky write to any address, with the inviter's title
// in the mail, so an account may have at most a daily cap of invitations
// emailed (INVITE_EMAIL_DAILY_CAP) in any 24 hours. Past it the open is
// refused and nothing changes: the tool result has no word on the email
// (the opener's delivery log has), so an open that went on without the
// mail would let the agent tell its human the invitee was written to.

// inviteCapWindow is the span the daily cap counts over, rolling.
const inviteCapWindow = 24 * time.Hour

// checkInviteCap refuses an invitation email past the account's cap. It
// runs in the open's transaction before anything is written, and holds the
// account's row lock until the open commits, so concurrent opens of one
// account count each other's invitation.
func (s *Rooms) checkInviteCap(ctx context.Context, tx pgx.Tx, accountID int64, now time.Time) error {
	again, err := s.inviteCapReached(ctx, tx, accountID, now)
	if err != nil || again.IsZero() {
		return err
	}
	invitations := "invitations"
	if s.inviteCap == 1 {
		invitations = "invitation"
	}
	return Errorf(ErrConflict, "invite_email: this account has had %d %s emailed in the last 24 hours, the most allowed; "+
		"nothing was opened. Open without invite_email and share the invite_url yourself, or try again from %s",
		s.inviteCap, invitations, again.UTC().Format(time.RFC3339))
}

// inviteCapReached locks the account's row for its invitation count (held
// until the transaction ends) and says from when it may have another
// address written to (zero: now).
func (s *Rooms) inviteCapReached(ctx context.Context, tx pgx.Tx, accountID int64, now time.Time) (time.Time, error) {
	if s.inviteCap <= 0 {
		return time.Time{}, nil
	}
	if err := lockAccountForInvites(ctx, tx, accountID); err != nil {
		return time.Time{}, err
	}
	at, err := nthLatestInviteEmail(ctx, tx, accountID, now.Add(-inviteCapWindow), s.inviteCap)
	if err != nil || at.IsZero() {
		return time.Time{}, err
	}
	return at.Add(inviteCapWindow), nil
}

// countPersonEmail counts the address a person answering an invitation
// gave against the inviter's account, as an invitation email (Taasky
// writes there what happens in the room, with the inviter's title), unless
// it is the address the invitation was emailed to, counted already. Past
// the cap the answer is refused. AnswerInvitation locked the account's row
// before the room's (the order every other path takes them in).
func (s *Rooms) countPersonEmail(ctx context.Context, tx pgx.Tx, roomID int64, inviter *partyRow, email string, now time.Time) error {
	if s.inviteCap <= 0 || inviter == nil || inviter.AccountID == nil {
		return nil
	}
	invited, err := selectRoomInviteEmail(ctx, tx, roomID)
	if err != nil {
		return err
	}
	if strings.EqualFold(invited, email) {
		return nil
	}
	again, err := s.inviteCapReached(ctx, tx, *inviter.AccountID, now)
	if err != nil {
		return err
	}
	if !again.IsZero() {
		return refuse(ErrConflict, "abuse7_person_email_cap", plural(s.inviteCap,
			"email: the sender of this invitation has had %d person written to in the last 24 hours, the most allowed; "+
				"answer without an email address (keep this page's link), or try again from %s",
			"email: the sender of this invitation has had %d people written to in the last 24 hours, the most allowed; "+
				"answer without an email address (keep this page's link), or try again from %s"), s.inviteCap, Moment(again))
	}
	return insertInviteEmail(ctx, tx, *inviter.AccountID, roomID, now)
}

// enqueueInvite inserts the invitation's email job, unique per room and
// address, logs it as queued in the opener's delivery log, and counts it
// against the account's cap.
func (s *Rooms) enqueueInvite(ctx context.Context, tx pgx.Tx, accountID, roomID, userID int64, to, code string) error {
	args := jobs.InviteArgs{RoomID: roomID, UserID: userID, To: to, Code: s.sealInviteCode(roomID, code)}
	res, err := s.river.InsertTx(ctx, tx, args, nil)
	if err != nil {
		return fmt.Errorf("insert invitation job: %w", err)
	}
	if s.inviteCap > 0 {
		if err := insertInviteEmail(ctx, tx, accountID, roomID, s.now()); err != nil {
			return err
		}
	}
	return insertQueued(ctx, tx, []delivery{{
		Notice:  jobs.Notice{Topic: jobs.TopicInvite, RoomID: roomID, Side: negotiation.SideA, UserID: userID},
		JobID:   res.Job.ID,
		Channel: jobs.ChannelEmail, Recipient: to,
	}}, s.dbMoment())
}

func inviteAD(roomID int64) []byte { return []byte("invite-code\x00" + strconv.FormatInt(roomID, 10)) }

func (s *Rooms) sealInviteCode(roomID int64, code string) []byte {
	return seal(s.limitsKey, []byte(code), inviteAD(roomID))
}

func (s *Rooms) openInviteCode(roomID int64, sealed []byte) (string, error) {
	code, err := unseal(s.limitsKey, sealed, inviteAD(roomID))
	if err != nil {
		return "", fmt.Errorf("invite code of room %d: %w", roomID, err)
	}
	return string(code), nil
}

// Invitation says what the invitation email holds now (jobs.Invitations):
// who invites (the opener's account), the title, the link, the deadline
// and the invitation's expiry, in the invitee's language and zone when
// they use Taasky already, else in the opener's language and UTC. Nothing
// of the terms or limits. An invitation answered,
// withdrawn or expired is not sent.
func (n *Notifications) Invitation(ctx context.Context, d jobs.Delivery, a jobs.InviteArgs) (*jobs.Notification, error) {
	code, err := n.rooms.openInviteCode(a.RoomID, a.Code)
	if err != nil {
		return nil, jobs.Skip("the invitation's code cannot be read (was SECRET_KEY changed?)")
	}
	out := &jobs.Notification{To: a.To, Now: n.now(), InviteURL: n.baseURL + "/i/" + code, UnsubscribeURL: n.RefuseInvitationsURL(a.To)}
	if out.Installation, err = n.install.get(ctx, n.pool); err != nil {
		return nil, err
	}
	err = pgx.BeginTxFunc(ctx, n.pool, readOnly, func(tx pgx.Tx) error {
		if refused, err := selectInviteRefused(ctx, tx, emailHashes(n.rooms.emailKey, a.To)); err != nil {
			return err
		} else if refused {
			return jobs.Skip("the address refused invitations from Taasky")
		}
		// Erasing a person forgets their address in the rooms invited by it
		// and in the mail's job (forgetAddresses): a mail still queued for
		// it is not sent.
		if invited, err := selectRoomInviteEmail(ctx, tx, a.RoomID); err != nil {
			return err
		} else if a.To == "" || !strings.EqualFold(invited, a.To) {
			return jobs.Skip("the address was erased")
		}
		ld, err := n.rooms.load(ctx, tx, a.RoomID, false)
		if ErrorCodeOf(err) == ErrNotFound || errors.Is(err, pgx.ErrNoRows) {
			return jobs.Skip("the room no longer exists")
		}
		if err != nil {
			return err
		}
		if id, _, err := roomByInvite(ctx, tx, secretHash(code)); ErrorCodeOf(err) == ErrNotFound || (err == nil && id != a.RoomID) {
			return jobs.Skip("the code does not open this room")
		} else if err != nil {
			return err
		}
		r := ld.room
		if r.State != negotiation.StateDraft {
			return jobs.Skip("the invitation was answered or withdrawn")
		}
		if _, due := r.Due(out.Now); due {
			return jobs.Skip("the invitation has expired")
		}
		out.Deadline, out.ExpiresAt = r.Deadline, r.ExpiresAt
		out.RoomUID = roomUID(out.Installation, a.RoomID, r.OpenedAt) // the mail's thread: the room's later mails'
		if ld.row.Title != nil {
			out.Title = *ld.row.Title
		}
		// An invitee who uses Taasky already reads it in their language
		// and zone, as an invitation to join an account does. A stranger's
		// zone is not known: moments are in UTC, which says nothing of the
		// inviter; the words are in the inviter's language, the one guess
		// there is of what the invitee reads.
		var inviter int64
		if id := ld.row.party(negotiation.SideA).OwnerUserID; id != nil {
			inviter = *id
		}
		lang, zone, err := selectInviteReader(ctx, tx, a.To, inviter)
		if err != nil {
			return err
		}
		out.Lang, out.TimeZone = lang, n.rooms.zone(zone)
		out.Them, err = selectAccountName(ctx, tx, ld.row.AccountID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

var _ jobs.Invitations = (*Notifications)(nil)
