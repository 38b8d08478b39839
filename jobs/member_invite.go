package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/notify"
)

// MemberInviteArgs mails an invitation to join an account. It carries the
// link's token sealed (only the service opens it): River's tables and its
// UI must not hold a link that works.
type MemberInviteArgs struct {
	AccountID    int64  `json:"account_id"`
	InvitationID int64  `json:"invitation_id"`
	To           string `json:"to"`
	Token        []byte `json:"token"` // sealed
	// UserID is who invited: the mail is a line of their delivery log (0:
	// an operator, who has none).
	UserID int64 `json:"user_id,omitempty"`
}

// Kind is the job's name in River's tables.
func (MemberInviteArgs) Kind() string { return "member_invite" }

// InsertOpts: unique by args (a resend seals a new token: a new job); the
// email's attempts (email_retry.go).
func (MemberInviteArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: EmailMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// MemberInvite is what an invitation's mail says.
type MemberInvite struct {
	ID          string // the mail's Message-ID part: one per invitation and send
	To          string
	AccountName string
	InvitedBy   string // "": an operator
	Role        string
	URL         string
	ExpiresAt   time.Time
	Now         time.Time
	// Lang and TimeZone are the reader's: theirs when they are a user
	// already, else the inviter's language and UTC.
	Lang     string
	TimeZone *time.Location
	// RefuseURL refuses every further invitation from Taasky to To (the
	// link and List-Unsubscribe, as a room invitation's); "": none.
	RefuseURL string
}

// MemberInvitations is what MemberInviteWorker needs of the service.
type MemberInvitations interface {
	// MemberInviteMail says what the mail holds now (the account, who
	// invites, the role, the link, its expiry), or returns a SkipError
	// when the invitation was accepted, revoked, re-sent with a new link
	// or has expired, or the address refused invitations from Taasky.
	MemberInviteMail(ctx context.Context, a MemberInviteArgs) (*MemberInvite, error)
}

// MemberInviteWorker sends MemberInviteArgs. A failure is returned to
// River, which retries with its backoff. Each attempt is a line of the
// inviter's delivery log (the invitee has none yet), as every mail's, when
// Deliveries is set and a person invited; the members page lists the
// invitation and when it was sent.
type MemberInviteWorker struct {
	river.WorkerDefaults[MemberInviteArgs]
	Invitations MemberInvitations
	Deliveries  Deliveries // nil: no delivery log
	Mailer      notify.Mailer
	From        string
	Log         *slog.Logger
}

func (w *MemberInviteWorker) Work(ctx context.Context, job *river.Job[MemberInviteArgs]) error {
	var rec recorder
	if w.Deliveries != nil && job.Args.UserID != 0 {
		rec = w.Deliveries
	}
	d := Delivery{Notice: Notice{Topic: TopicMemberInvite, UserID: job.Args.UserID}, JobID: job.ID, Attempt: job.Attempt, Channel: ChannelEmail}
	if rec != nil {
		if sent, err := sentBefore(ctx, w.Log, rec, d, job.JobRow); sent || err != nil {
			return err
		}
	}
	m, err := w.Invitations.MemberInviteMail(ctx, job.Args)
	if reason, ok := skipReason(err); ok {
		if w.Log != nil {
			w.Log.Info("member invitation not sent", "invitation_id", job.Args.InvitationID, "reason", reason)
		}
		if rec != nil {
			return record(ctx, w.Log, rec, d, Outcome{Status: StatusSkipped, Detail: reason, Recipient: job.Args.To})
		}
		return nil
	}
	if err != nil {
		return err
	}
	msg, err := notify.Email(&notify.Message{Kind: notify.KindMemberInvite, ID: m.ID, To: m.To, Now: m.Now,
		Them: m.AccountName, Agent: m.InvitedBy, Role: m.Role, InviteURL: m.URL, ExpiresAt: m.ExpiresAt,
		Lang: m.Lang, TimeZone: m.TimeZone, UnsubscribeURL: m.RefuseURL}, w.From)
	if err != nil {
		err = &notify.PermanentError{Err: err} // a message that cannot be written will not be on a retry
	} else {
		err = w.Mailer.Send(ctx, msg)
	}
	if rec == nil {
		var perm *notify.PermanentError
		if errors.As(err, &perm) {
			return river.JobCancel(addressless(err))
		}
		return addressless(err)
	}
	return finish(ctx, w.Log, rec, d, job.MaxAttempts, Outcome{Recipient: m.To}, err)
}
