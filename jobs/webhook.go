package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/taasky/taasky/notify"
)

// WebhookArgs sends one webhook message (one event to one endpoint) to its
// endpoint. The message (its webhook-id, event, room) was written in the
// move's transaction beside this job; the job carries only its identity.
type WebhookArgs struct {
	AccountID int64  `json:"account_id"`
	MessageID string `json:"message_id"` // the webhook-id
	// Again tells apart a "Send again" from the first job of the message
	// (and from one another); the webhook-id stays the message's.
	Again int64 `json:"again,omitempty"`
}

// Kind is the job's name in River's tables.
func (WebhookArgs) Kind() string { return "webhook" }

// InsertOpts: unique by args (a message's first job is inserted once), and
// as many attempts as WebhookBackoff has steps, plus the first; in
// QueueOutbound, so that an endpoint slow to answer holds up no mail.
func (WebhookArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: len(WebhookBackoff) + 1, Queue: QueueOutbound, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// WebhookBackoff is the wait before each retry of a webhook: the Standard
// Webhooks schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), about 27
// hours from the first attempt to the last.
var WebhookBackoff = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Webhook is one message ready to send: where, signed with what, the
// bytes. The service fixes the payload at the first attempt, so that every
// attempt and every "Send again" of one webhook-id sends the same bytes.
type Webhook struct {
	URL     string
	Secrets []string // whsec_…: the current one, and the previous one during a rotation
	ID      string   // webhook-id
	Payload []byte
}

// WebhookAttempt is what one attempt did, for the delivery log.
type WebhookAttempt struct {
	AccountID  int64
	MessageID  string
	JobID      int64
	Attempt    int
	At         time.Time
	Duration   time.Duration
	StatusCode int    // 0: no HTTP answer
	Error      string // "" on a 2xx
	Status     Status // sent, retrying, failed
}

// Webhooks is the service as the webhook worker sees it.
type Webhooks interface {
	// Webhook says what to send for a message now, or returns a SkipError
	// when the endpoint was deleted or disabled.
	Webhook(ctx context.Context, accountID int64, messageID string) (*Webhook, error)
	// WebhookSentBy reports whether the log says job delivered the message
	// (an attempt answered 2xx).
	WebhookSentBy(ctx context.Context, accountID int64, messageID string, jobID int64) (bool, error)
	// RecordWebhook writes an attempt to the delivery log and keeps the
	// endpoint's run of failures: one that fails for days is disabled and
	// its account's owners are told.
	RecordWebhook(ctx context.Context, a WebhookAttempt) error
}

// WebhookSender posts a signed message (notify.WebhookSender).
type WebhookSender interface {
	Send(ctx context.Context, m notify.WebhookMessage) (int, error)
}

// WebhookWorker sends WebhookArgs. Every attempt is logged; a 2xx ends the
// job; anything else is retried on WebhookBackoff (Backoff in tests) until
// the attempts run out. A worker killed mid-send leaves the job running,
// and the rescue gives it back: an endpoint that had the request but whose
// answer was never logged receives the same webhook-id again, which is
// what the id is for (at least once; duplicates only with the same id). A
// job whose delivery was logged is not sent again.
type WebhookWorker struct {
	river.WorkerDefaults[WebhookArgs]
	Webhooks Webhooks
	Sender   WebhookSender
	Log      *slog.Logger
	// Backoff replaces WebhookBackoff (tests); its length does not change
	// the attempts, which InsertOpts fixed.
	Backoff []time.Duration
	// Now times the attempts in the log (and so the run of failures that
	// disables an endpoint); nil: time.Now. The webhook-timestamp is always
	// the real clock's: receivers check it against theirs.
	Now func() time.Time
	// Share holds each account to its share of the outbound workers
	// (OutboundPerOwner), with the pushes' PushWorker.Share; nil: none.
	Share *OutboundShare
}

// NextRetry is the webhook's own schedule, not River's attempt⁴ seconds.
func (w *WebhookWorker) NextRetry(job *river.Job[WebhookArgs]) time.Time {
	steps := w.Backoff
	if steps == nil {
		steps = WebhookBackoff
	}
	i := min(max(job.Attempt-1, 0), len(steps)-1)
	return time.Now().Add(steps[i])
}

func (w *WebhookWorker) Work(ctx context.Context, job *river.Job[WebhookArgs]) error {
	leave, snooze := w.Share.enter(accountOwner(job.Args.AccountID), job.JobRow)
	if snooze != nil {
		return snooze
	}
	defer leave()
	// A job River gives back after its worker died may have delivered
	// already (River marks jobs completed in batches, after the worker
	// returned): the log, written as soon as the endpoint answered, says.
	if !firstFetch(job.JobRow) {
		sent, err := w.Webhooks.WebhookSentBy(ctx, job.Args.AccountID, job.Args.MessageID, job.ID)
		if err != nil || sent {
			return err
		}
	}
	m, err := w.Webhooks.Webhook(ctx, job.Args.AccountID, job.Args.MessageID)
	if reason, ok := skipReason(err); ok {
		if w.Log != nil {
			w.Log.Info("webhook not sent", "message_id", job.Args.MessageID, "reason", reason)
		}
		return nil
	}
	if err != nil {
		return err
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	start := time.Now()
	code, sendErr := w.Sender.Send(ctx, notify.WebhookMessage{URL: m.URL, ID: m.ID, Secrets: m.Secrets, Payload: m.Payload, At: start})
	a := WebhookAttempt{AccountID: job.Args.AccountID, MessageID: job.Args.MessageID, JobID: job.ID, Attempt: job.Attempt,
		At: now(), Duration: time.Since(start), StatusCode: code, Status: StatusSent}
	var perm *notify.PermanentError
	switch {
	case sendErr == nil:
	case errors.As(sendErr, &perm):
		a.Status, a.Error = StatusFailed, sendErr.Error()
	case job.Attempt >= job.MaxAttempts:
		a.Status, a.Error = StatusFailed, sendErr.Error()
	default:
		a.Status, a.Error = StatusRetrying, sendErr.Error()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := w.Webhooks.RecordWebhook(rctx, a); err != nil && w.Log != nil {
		w.Log.Warn("webhook delivery log", "message_id", a.MessageID, "err", err)
	}
	switch {
	case sendErr == nil:
		return nil
	case a.Status == StatusFailed && perm != nil:
		return river.JobCancel(sendErr)
	}
	return fmt.Errorf("webhook %s: %w", job.Args.MessageID, sendErr)
}

// WebhookDisabledArgs mails one owner of an account that Taasky disabled
// one of its webhook endpoints after days of failures.
type WebhookDisabledArgs struct {
	AccountID  int64 `json:"account_id"`
	EndpointID int64 `json:"endpoint_id"`
	UserID     int64 `json:"user_id"`
	// At tells apart one disabling from a later one of the same endpoint.
	At time.Time `json:"at"`
}

// Kind is the job's name in River's tables.
func (WebhookDisabledArgs) Kind() string { return "webhook_disabled" }

// InsertOpts: unique by args, so one disabling mails each owner once.
func (WebhookDisabledArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// WebhookDisabled is what the mail says.
type WebhookDisabled struct {
	To          string
	Lang        string // the owner's language ("": English)
	AccountName string
	URL         string // the endpoint
	Why         string // the last failure
	SettingsURL string // the account's webhooks page
	Now         time.Time
	// Installation is the database's installation id: with the job, it
	// makes the Message-ID (messageID), as for every notice.
	Installation string
}

// WebhookNotices is what WebhookDisabledWorker needs of the service.
type WebhookNotices interface {
	// WebhookDisabledMail says what the mail holds, or returns a
	// SkipError when the endpoint is enabled again or gone, or the user is
	// no longer an owner.
	WebhookDisabledMail(ctx context.Context, a WebhookDisabledArgs) (*WebhookDisabled, error)
}

// WebhookDisabledWorker sends WebhookDisabledArgs, a line of the owner's
// delivery log (topic webhook_disabled), so that a retry after a crash
// does not send it twice (sentBefore); River retries a failed send with
// its backoff.
type WebhookDisabledWorker struct {
	river.WorkerDefaults[WebhookDisabledArgs]
	Notices    WebhookNotices
	Deliveries Deliveries // nil: no delivery log
	Mailer     notify.Mailer
	From       string
	Log        *slog.Logger
}

func (w *WebhookDisabledWorker) Work(ctx context.Context, job *river.Job[WebhookDisabledArgs]) error {
	d := Delivery{Notice: Notice{Topic: TopicWebhookDisabled, UserID: job.Args.UserID}, JobID: job.ID, JobCreatedAt: job.CreatedAt,
		Attempt: job.Attempt, Channel: ChannelEmail}
	if w.Deliveries != nil {
		if sent, err := sentBefore(ctx, w.Log, w.Deliveries, d, job.JobRow); sent || err != nil {
			return err
		}
	}
	m, err := w.Notices.WebhookDisabledMail(ctx, job.Args)
	if reason, ok := skipReason(err); ok {
		if w.Log != nil {
			w.Log.Info("webhook notice not sent", "endpoint_id", job.Args.EndpointID, "reason", reason)
		}
		return nil
	}
	if err != nil {
		return err
	}
	msg, err := notify.Email(&notify.Message{Kind: notify.KindWebhookDisabled, ID: messageID(d, m.Installation),
		To: m.To, Lang: m.Lang, Now: m.Now, Them: m.AccountName, Endpoint: m.URL, Detail: m.Why, SettingsURL: m.SettingsURL}, w.From)
	if err != nil {
		err = &notify.PermanentError{Err: err} // a message that cannot be written will not be on a retry
	} else {
		err = w.Mailer.Send(ctx, msg)
	}
	if w.Deliveries == nil {
		if perm := (*notify.PermanentError)(nil); errors.As(err, &perm) {
			return river.JobCancel(err)
		}
		return err
	}
	return finish(ctx, w.Log, w.Deliveries, d, job.MaxAttempts, Outcome{Recipient: m.To}, err)
}
