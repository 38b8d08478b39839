package jobs

import (
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/negotiation"
)

// Topic is what a notification is about (notify.Kind, by value).
type Topic string

const (
	TopicRequest  Topic = "request"  // a move waits for the human: critical
	TopicReminder Topic = "reminder" // a request still waits; the deadline is near
	TopicAgreed   Topic = "agreed"
	TopicClosed   Topic = "closed" // rejected, cancelled, withdrawn, expired or lapsed
	TopicNoDeal   Topic = "no_deal"
	TopicTest     Topic = "test" // a push the human asked for from settings
	// TopicInvite: the invitation emailed at the open (negotiation_open's
	// invite_email), to a person who may have no account. It is logged in
	// the opener's delivery log.
	TopicInvite Topic = "invite"
	// TopicMemberInvite: an invitation to join an account
	// (MemberInviteArgs), logged in the inviter's delivery log.
	TopicMemberInvite Topic = "member_invite"
	// TopicWebhookDisabled: the mail telling an owner that Taasky turned
	// off a failing webhook endpoint (WebhookDisabledArgs), logged in that
	// owner's delivery log.
	TopicWebhookDisabled Topic = "webhook_disabled"
	// TopicTurn: the other side moved (offered, countered, asked for
	// detail, approved) and it is now the turn of a person answering in
	// the browser, who has no agent to watch the room for them. Logged in
	// the room's log of a person's deliveries.
	TopicTurn Topic = "turn"
)

// Critical reports whether the topic reaches the human whatever they
// unsubscribed from: a confirmation request only.
func (t Topic) Critical() bool { return t == TopicRequest }

// Channel is how a notification travels.
type Channel string

const (
	ChannelEmail Channel = "email"
	ChannelPush  Channel = "push"
)

// Notice identifies one notification to one human: what, about which room
// and confirmation, to whom. Jobs carry identities only, never content or
// secrets: the worker renders from the room as it is when it runs, and
// issues the one-tap token then. UserID 0 is the person who answered the
// room's invitation in the browser (side b, no account): their address is
// on their party row.
type Notice struct {
	Topic          Topic            `json:"topic"`
	RoomID         int64            `json:"room_id,omitempty"`
	Side           negotiation.Side `json:"side,omitempty"`
	UserID         int64            `json:"user_id"`
	ConfirmationID string           `json:"confirmation_id,omitempty"` // request, reminder
	Before         string           `json:"before,omitempty"`          // reminder: its name (negotiation.Reminder)
	// Seq is the room's log length after the move that passed the turn
	// (turn): one notice per such move, where the rest would be the same.
	Seq int `json:"seq,omitempty"`
	// Again is the moment (Unix nanoseconds) a pending request was asked
	// again after a restore from a backup (app.MovePastBackup): its answer
	// may have been given after the backup point and lost. Its jobs are
	// their own, which uniqueness by args would otherwise take for the
	// first request's.
	Again int64 `json:"again,omitempty"`
}

// EmailArgs sends one notice by email.
type EmailArgs struct {
	Notice
}

// Kind is the job's name in River's tables.
func (EmailArgs) Kind() string { return "notify_email" }

// InsertOpts: unique by args, so a retried or repeated insert of the same
// notice never makes a second job (and so a second mail); the email's
// attempts (email_retry.go).
func (EmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: EmailMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// KindAliases: EmailWorker works PersonReminderArgs too (the same args).
func (EmailArgs) KindAliases() []string { return []string{PersonReminderArgs{}.Kind()} }

// PersonReminderArgs is EmailArgs for a reminder of a person's turn (a
// side b answering in the browser, UserID 0; migration 00031), under a kind
// of its own: a worker of a build before 00031, while both run during an
// upgrade, skips such a notice as notify_email ("a person is not told of
// reminder"), and the reminder was lost. A kind it does not know is not
// lost: it fails there and is retried until a newer worker takes it. The
// EmailWorker works it (EmailArgs.KindAliases).
type PersonReminderArgs struct {
	Notice
}

// Kind is the job's name in River's tables.
func (PersonReminderArgs) Kind() string { return "notify_person_reminder" }

// InsertOpts: EmailArgs's.
func (PersonReminderArgs) InsertOpts() river.InsertOpts { return EmailArgs{}.InsertOpts() }

// PushArgs sends one notice to one of the human's devices.
type PushArgs struct {
	Notice
	SubscriptionID int64 `json:"subscription_id"`
	// Nonce tells apart test pushes, which may be asked for again and again.
	Nonce string `json:"nonce,omitempty"`
}

// Kind is the job's name in River's tables.
func (PushArgs) Kind() string { return "notify_push" }

// InsertOpts: unique by args; a push is worth fewer retries than a mail
// (about two hours: the device may be gone, and the mail carries the same);
// in QueueOutbound, so that a push service slow to answer holds up no mail.
func (PushArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 8, Queue: QueueOutbound, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// InviteArgs emails the invitation of a room to the address its opener's
// agent gave (negotiation_open's invite_email), once per room and address.
type InviteArgs struct {
	RoomID int64 `json:"room_id" river:"unique"`
	// UserID is the opener's human: the delivery shows in their log.
	UserID int64  `json:"user_id"`
	To     string `json:"to" river:"unique"`
	// Code is the invitation's code sealed with the server's key (the
	// service opens it when the mail is written): River's tables and its UI
	// never show a code that opens the room.
	Code []byte `json:"code"`
}

// Kind is the job's name in River's tables.
func (InviteArgs) Kind() string { return "notify_invite" }

// InsertOpts: unique by room and address (the sealed code differs at every
// seal), so a repeated insert never mails twice; the email's attempts
// (email_retry.go).
func (InviteArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: EmailMaxAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RemindArgs is the reminder job a confirmation had before the sweep
// (SweepArgs) took over reminders: scheduled at its moment, each one
// scheduling the next. No code inserts it any more; a database migrated
// from then may still hold such jobs, and its worker stays to finish them.
type RemindArgs struct {
	RoomID         int64            `json:"room_id"`
	Side           negotiation.Side `json:"side"`
	ConfirmationID string           `json:"confirmation_id"`
	Before         string           `json:"before"`
	At             time.Time        `json:"at"`
}

// Kind is the job's name in River's tables.
func (RemindArgs) Kind() string { return "notify_remind" }

// SkipError says a notice has nothing to send any more (answered already,
// the channel turned off, the device unsubscribed): the job ends without a
// retry, and the delivery log says why.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// Skip returns a SkipError.
func Skip(reason string) error { return &SkipError{Reason: reason} }

// WaitError says a notice is to wait for an earlier message to its
// recipient about its room, whose job River runs next at Next (see
// inOrder): the job is snoozed, and nothing is sent or recorded.
type WaitError struct{ Next time.Time }

func (e *WaitError) Error() string { return "waits for an earlier message about its room" }

// WaitFor returns a WaitError.
func WaitFor(next time.Time) error { return &WaitError{Next: next} }

func skipReason(err error) (string, bool) {
	var s *SkipError
	if errors.As(err, &s) {
		return s.Reason, true
	}
	return "", false
}
