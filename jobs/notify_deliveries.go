package jobs

import (
	"context"
	"strconv"
	"time"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
)

// Deliveries is the service as the notification workers see it.
type Deliveries interface {
	// Sent reports whether the delivery log says d's job was sent: the SMTP
	// server or the push service accepted an earlier attempt of it.
	Sent(ctx context.Context, d Delivery) (bool, error)
	// Notification says what to tell the human of d now, or returns a
	// SkipError when there is nothing to send any more, or a WaitError
	// when an earlier message to the same recipient about d's room is to
	// go first (inOrder). For a request or a reminder it issues the
	// one-tap token the message carries (none when it waits).
	Notification(ctx context.Context, d Delivery) (*Notification, error)
	// Record writes an attempt's outcome to the recipient's delivery log;
	// StatusGone also forgets the push subscription. StatusSent is written
	// durably before Record returns, and a line that says sent stays so.
	// An outcome other than StatusRetrying after a failed attempt makes
	// the messages waiting for d (inOrder) ready.
	Record(ctx context.Context, d Delivery, o Outcome) error
}

// PushDeliveries is the service as the push worker sees it.
type PushDeliveries interface {
	Deliveries
	// PushedLately reports whether another job's push about d's room went
	// to d's device within the last `within` (the log says sent).
	PushedLately(ctx context.Context, d Delivery, within time.Duration) (bool, error)
}

// Invitations is the service as the invitation worker sees it.
type Invitations interface {
	// Sent reports whether the opener's delivery log says d's job was sent.
	Sent(ctx context.Context, d Delivery) (bool, error)
	// Invitation says what the invitation of a holds now (who invites,
	// about what, the link, the deadline), or returns a SkipError when the
	// invitation is no longer open.
	Invitation(ctx context.Context, d Delivery, a InviteArgs) (*Notification, error)
	// Record writes an attempt's outcome to the opener's delivery log (sent
	// durably before it returns, and for good).
	Record(ctx context.Context, d Delivery, o Outcome) error
}

// Delivery is one attempt at one notice on one channel.
type Delivery struct {
	Notice
	JobID          int64
	JobCreatedAt   time.Time // with JobID, names the job in no other database (UniqueID)
	Attempt        int
	Channel        Channel
	SubscriptionID int64 // push
}

// Status is where a delivery stands in the log.
type Status string

const (
	StatusQueued   Status = "queued"   // inserted with the move, not tried yet
	StatusSent     Status = "sent"     // the SMTP server or the push service accepted it; final: no attempt sends again
	StatusRetrying Status = "retrying" // an attempt failed; River retries with backoff
	StatusFailed   Status = "failed"   // given up: refused for good, or out of attempts
	StatusSkipped  Status = "skipped"  // nothing to send any more (see the detail)
	StatusGone     Status = "gone"     // the push subscription no longer exists; removed
)

// Outcome is what an attempt did.
type Outcome struct {
	Status    Status
	Detail    string // the error, or why it was skipped
	Recipient string // the address, or the push service's host
}

// Notification is what the service says a notice holds: the recipient's
// own view of the room (their card, labels, time zone), never a limit.
// The worker adds what the job knows (topic, ids) and renders it.
type Notification struct {
	To       string  // email address (email)
	Push     *Device // push
	TimeZone *time.Location
	Lang     string // the recipient's language tag ("": the default)
	Now      time.Time

	RoomURL        string
	OneTapURL      string // request, reminder
	InviteURL      string // invite
	UnsubscribeURL string // non-critical mail
	SettingsURL    string

	Title   string
	Agent   string
	Them    string
	ThemKey string // the other side in the catalog's words, when no account's name is shown (notify.Message)
	// HandedOver: a request to an owner, because the side's human left
	// the account.
	HandedOver bool
	// Person: the recipient answered the invitation in the browser and
	// has no account: RoomURL is their personal link, and they have no
	// settings page.
	Person bool
	// Verdict is the move waiting for the recipient (request, reminder),
	// or the other side's move that made it their turn (turn).
	Verdict      negotiation.Verdict
	Card         *negotiation.Card
	Deadline     time.Time
	ExpiresAt    time.Time // invite: the invitation's end if nobody answers
	ClosedReason negotiation.ClosedReason
	NoDeal       []negotiation.CardNote
	// Receipt is the agreed room's signed receipt (agreed, email).
	Receipt string
	// Installation is the database's installation id (UniqueID's key),
	// and RoomUID the room's unique id (calendar UIDs).
	Installation string
	RoomUID      string
}

// Device is one browser's push subscription.
type Device struct {
	Endpoint string
	P256dh   string // base64url
	Auth     string // base64url
}

// message is the notification ready for notify to render.
func (n *Notification) message(d Delivery) *notify.Message {
	var push *notify.PushTarget
	if n.Push != nil {
		push = &notify.PushTarget{Endpoint: n.Push.Endpoint, P256dh: n.Push.P256dh, Auth: n.Push.Auth}
	}
	return &notify.Message{
		Kind: notify.Kind(d.Topic), ID: messageID(d, n.Installation), To: n.To, Push: push, TimeZone: n.TimeZone, Lang: n.Lang, Now: n.Now,
		RoomID: d.RoomID, RoomURL: n.RoomURL, Title: n.Title, Agent: n.Agent, Them: n.Them, ThemKey: n.ThemKey, HandedOver: n.HandedOver,
		Person: n.Person, Verdict: n.Verdict, OneTapURL: n.OneTapURL, InviteURL: n.InviteURL, Card: n.Card, Deadline: n.Deadline, ExpiresAt: n.ExpiresAt,
		ClosedReason: n.ClosedReason, NoDeal: n.NoDeal, UnsubscribeURL: n.UnsubscribeURL, SettingsURL: n.SettingsURL,
		Receipt: n.Receipt, RoomUID: n.RoomUID,
	}
}

// messageID is stable across the retries of one job and unique to it
// among every database's jobs (UniqueID).
func messageID(d Delivery, installation string) string {
	id := UniqueID(installation, "job", strconv.FormatInt(d.JobID, 10), strconv.FormatInt(d.JobCreatedAt.UnixNano(), 10))
	return "taasky." + string(d.Channel) + "." + id + "." + string(d.Topic)
}
