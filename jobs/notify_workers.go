package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
)

// EmailWorker sends EmailArgs: it asks the service what to say, renders it
// and hands it to the mailer (SMTP, or the dev outbox). A failure is
// returned to River, which retries with its backoff; the delivery log
// follows every attempt, and an attempt whose job the log already says was
// sent sends nothing (see sentBefore).
type EmailWorker struct {
	river.WorkerDefaults[EmailArgs]
	Deliveries Deliveries
	Mailer     notify.Mailer
	From       string
	Log        *slog.Logger
}

func (w *EmailWorker) Work(ctx context.Context, job *river.Job[EmailArgs]) error {
	d := Delivery{Notice: job.Args.Notice, JobID: job.ID, JobCreatedAt: job.CreatedAt, Attempt: job.Attempt, Channel: ChannelEmail}
	if sent, err := sentBefore(ctx, w.Log, w.Deliveries, d, job.JobRow); sent || err != nil {
		return err
	}
	n, err := w.Deliveries.Notification(ctx, d)
	if reason, ok := skipReason(err); ok {
		return record(ctx, w.Log, w.Deliveries, d, Outcome{Status: StatusSkipped, Detail: reason})
	}
	if err != nil {
		return inOrder(w.Log, d, err)
	}
	return sendEmail(ctx, w.Log, w.Deliveries, w.Mailer, w.From, d, n, job.MaxAttempts)
}

// InviteWorker sends InviteArgs: the invitation a room's opener asked
// Taasky to email. It is an email like the others (rendered by notify,
// retried by River, logged in the opener's delivery log), to an address
// that may belong to nobody with an account.
type InviteWorker struct {
	river.WorkerDefaults[InviteArgs]
	Invitations Invitations
	Mailer      notify.Mailer
	From        string
	Log         *slog.Logger
}

func (w *InviteWorker) Work(ctx context.Context, job *river.Job[InviteArgs]) error {
	d := Delivery{Notice: Notice{Topic: TopicInvite, RoomID: job.Args.RoomID, Side: negotiation.SideA, UserID: job.Args.UserID},
		JobID: job.ID, JobCreatedAt: job.CreatedAt, Attempt: job.Attempt, Channel: ChannelEmail}
	if sent, err := sentBefore(ctx, w.Log, w.Invitations, d, job.JobRow); sent || err != nil {
		return err
	}
	n, err := w.Invitations.Invitation(ctx, d, job.Args)
	if reason, ok := skipReason(err); ok {
		return record(ctx, w.Log, w.Invitations, d, Outcome{Status: StatusSkipped, Detail: reason, Recipient: job.Args.To})
	}
	if err != nil {
		return err
	}
	return sendEmail(ctx, w.Log, w.Invitations, w.Mailer, w.From, d, n, job.MaxAttempts)
}

// Messages to one person about one room arrive in the order they were
// queued, on each channel (email; push, per device): a message whose job
// finds an earlier one about the room to the same person (and device)
// still to be delivered (an email queued or retrying; a push retrying: a
// push merely queued may be waiting for its burst to end, PushCoalesce),
// and that one's job still alive in River (ready, running, or waiting for
// its next attempt), waits (a River snooze, which spends no attempt)
// until just after that one's next attempt, at most orderWaitMax, and
// looks again; the earlier one's last outcome after a failed attempt
// (Record: sent, skipped, failed) makes the waiting ones ready at once.
// After an outage a reminder, an "agreed", a "cancelled" or a newer
// request, queued while an earlier message about the room waited for its
// retry, used to go at once, before it. The wait ends with the earlier
// message: sent, skipped (what no longer holds when its turn comes is not
// sent: Notification), refused for good, out of attempts, or its job
// cancelled or deleted. A message that then no longer holds is skipped
// with the reason in the delivery log. Only the jobs read and write for
// it, never the move.
const (
	// orderMargin is how long after the earlier message's next attempt
	// the later one looks again.
	orderMargin = 2 * time.Second
	// orderPoll is how long it waits for one that is running or ready now
	// (done within milliseconds, or an SMTP timeout), should the earlier
	// one's outcome come before its snooze is written, and miss it.
	orderPoll = 250 * time.Millisecond
	// orderWaitMax bounds one wait: an earlier job cancelled or deleted
	// in the River UI records no outcome that would release the later
	// ones.
	orderWaitMax = time.Minute
)

// inOrder turns Notification's WaitError into River's snooze (see above);
// any other error is returned as it is, for a retry. The notice's own
// statement looks for the earlier message (app's earlierCTE): waiting
// costs a message no statement more.
func inOrder(log *slog.Logger, d Delivery, err error) error {
	var w *WaitError
	if !errors.As(err, &w) {
		return err
	}
	wait := orderPoll
	if until := time.Until(w.Next); until > 0 {
		wait = min(until+orderMargin, orderWaitMax)
	}
	if log != nil {
		log.Debug("waits for an earlier message about its room to be delivered", "job_id", d.JobID,
			"channel", d.Channel, "topic", d.Topic, "room_id", d.RoomID, "wait", wait)
	}
	return river.JobSnooze(wait)
}

// sendEmail renders n and hands it to the mailer, then records the outcome
// at once: a message the server accepted is logged sent before anything
// else happens.
func sendEmail(ctx context.Context, log *slog.Logger, rec recorder, mailer notify.Mailer, from string, d Delivery, n *Notification, maxAttempts int) error {
	out := Outcome{Recipient: n.To}
	msg, err := notify.Email(n.message(d), from)
	if err != nil {
		err = &notify.PermanentError{Err: err} // a message that cannot be written will not be on a retry
	} else {
		err = mailer.Send(ctx, msg)
	}
	return finish(ctx, log, rec, d, maxAttempts, out, err)
}

// recorder writes the delivery log and reads back what it says of a job.
type recorder interface {
	Sent(ctx context.Context, d Delivery) (bool, error)
	Record(ctx context.Context, d Delivery, o Outcome) error
}

// sentBefore reports whether the log says d's job was sent by an earlier
// attempt. River marks a job completed some time after its worker returns
// (in batches); a process killed in between leaves the job "running", and
// River gives it back a minute later, to be fetched again. The log was
// written as soon as the server accepted the message, so the new attempt
// finds it and ends without sending again. A job the log does not say was
// sent (not tried, refused, or cut off before the server accepted it) is
// sent: at least once for everything not accepted. An error reading the
// log fails the attempt, for a retry: sending without knowing could send
// twice. A job fetched for the first time (firstFetch) has had no earlier
// attempt, and does not read the log.
func sentBefore(ctx context.Context, log *slog.Logger, rec recorder, d Delivery, job *rivertype.JobRow) (bool, error) {
	if firstFetch(job) {
		return false, nil
	}
	sent, err := rec.Sent(ctx, d)
	if err != nil {
		return false, fmt.Errorf("%s %s: read the delivery log: %w", d.Channel, d.Topic, err)
	}
	if sent && log != nil {
		log.Info("delivery sent by an earlier attempt; not sent again", "job_id", d.JobID, "attempt", d.Attempt,
			"channel", d.Channel, "topic", d.Topic)
	}
	return sent, nil
}

// firstFetch reports whether River is running job for the first time.
// Its attempt alone does not say: River takes one off for a snooze and for
// an attempt cut off at shutdown. Every fetch adds the client to
// AttemptedBy, so a job fetched once has one entry.
func firstFetch(job *rivertype.JobRow) bool {
	return job != nil && job.Attempt <= 1 && len(job.AttemptedBy) <= 1
}

// PushWorker sends PushArgs to one device. A gone subscription (404, 410)
// is removed and not retried. Like an email, a push the push service
// accepted is logged sent at once, and not pushed again by a later attempt.
// A request or a reminder that follows another push about its room to the
// same device within PushCoalesce waits (coalesce), so that of a burst of
// requests only the first and the one still pending go out.
type PushWorker struct {
	river.WorkerDefaults[PushArgs]
	Deliveries PushDeliveries
	Pusher     *notify.Pusher // nil: Web Push is not configured
	Log        *slog.Logger
	// Share holds each user's pushes to their share of the outbound
	// workers (OutboundPerOwner), with WebhookWorker.Share; nil: none.
	Share *OutboundShare
}

func (w *PushWorker) Work(ctx context.Context, job *river.Job[PushArgs]) error {
	leave, snooze := w.Share.enter(userOwner(job.Args.UserID), job.JobRow)
	if snooze != nil {
		return snooze
	}
	defer leave()
	d := Delivery{Notice: job.Args.Notice, JobID: job.ID, JobCreatedAt: job.CreatedAt, Attempt: job.Attempt, Channel: ChannelPush,
		SubscriptionID: job.Args.SubscriptionID}
	if sent, err := sentBefore(ctx, w.Log, w.Deliveries, d, job.JobRow); sent || err != nil {
		return err
	}
	if w.Pusher == nil {
		return record(ctx, w.Log, w.Deliveries, d, Outcome{Status: StatusSkipped, Detail: "Web Push is not configured (VAPID keys)"})
	}
	if wait, err := w.coalesce(ctx, d, job.CreatedAt); wait > 0 || err != nil {
		if err != nil {
			return err
		}
		return river.JobSnooze(wait)
	}
	n, err := w.Deliveries.Notification(ctx, d)
	if reason, ok := skipReason(err); ok {
		return record(ctx, w.Log, w.Deliveries, d, Outcome{Status: StatusSkipped, Detail: reason})
	}
	if err != nil {
		return inOrder(w.Log, d, err)
	}
	if n.Push == nil {
		return record(ctx, w.Log, w.Deliveries, d, Outcome{Status: StatusSkipped, Detail: "no device"})
	}
	out := Outcome{Recipient: hostOf(n.Push.Endpoint)}
	m := n.message(d)
	err = w.Pusher.Send(ctx, *m.Push, notify.Push(m), notify.PushOptionsFor(m))
	if errors.Is(err, notify.ErrGone) {
		out.Status, out.Detail = StatusGone, err.Error()
		return record(ctx, w.Log, w.Deliveries, d, out)
	}
	return finish(ctx, w.Log, w.Deliveries, d, job.MaxAttempts, out, err)
}

// PushCoalesce is how long after its job was queued a request's or a
// reminder's push waits when another push about the same room went to the
// same device less than PushCoalesce ago. An agent that replaces its
// request again and again (or alternates two) queued a push per call and
// device, each sent at once, each still pending when sent, and a phone
// showed, or received once back online, one after the other. Now the
// first goes at once; the next ones wait until PushCoalesce after they
// were queued and are then sent only if their request is still pending
// (Notification skips the rest): one more push per burst, the current
// one. The push's Topic and tag (notify.PushOptionsFor, notify.Push)
// replace the first with it, at the push service and on the device.
const PushCoalesce = 5 * time.Second

// coalesce says how long d's push waits (0: not at all): only a request
// or a reminder (what a later move makes stale), only while its job is
// younger than PushCoalesce (a job that waited once, or runs late, or
// again, is sent or skipped at once), and only after another push about
// its room to its device within PushCoalesce.
func (w *PushWorker) coalesce(ctx context.Context, d Delivery, queued time.Time) (time.Duration, error) {
	if d.Topic != TopicRequest && d.Topic != TopicReminder {
		return 0, nil
	}
	wait := time.Until(queued.Add(PushCoalesce))
	if wait <= 0 {
		return 0, nil
	}
	lately, err := w.Deliveries.PushedLately(ctx, d, PushCoalesce)
	if err != nil {
		return 0, fmt.Errorf("push %s: read the delivery log: %w", d.Topic, err)
	}
	if !lately {
		return 0, nil
	}
	return wait, nil
}

// RemindWorker finishes an old reminder job at once, doing nothing: the
// sweep reminds of every pending confirmation at its moments (migration
// 00013 has it plan the reminders of the confirmations pending before it),
// so the job is moot.
type RemindWorker struct {
	river.WorkerDefaults[RemindArgs]
}

func (w *RemindWorker) Work(context.Context, *river.Job[RemindArgs]) error { return nil }

// finish records a send's outcome and tells River what to do: nothing
// after a success, stop after a permanent refusal, retry otherwise.
func finish(ctx context.Context, log *slog.Logger, ds recorder, d Delivery, maxAttempts int, out Outcome, sendErr error) error {
	if sendErr == nil {
		out.Status = StatusSent
		return record(ctx, log, ds, d, out)
	}
	out.Detail = sendErr.Error()
	var perm *notify.PermanentError
	switch {
	case errors.As(sendErr, &perm):
		out.Status = StatusFailed
		_ = record(ctx, log, ds, d, out)
		// River logs nothing of a job it cancels: without this line a
		// mail server that refuses every message for good (a sender's
		// policy, SPF) left no trace in the log.
		if log != nil {
			log.Warn("delivery refused for good: not retried", "job_id", d.JobID, "channel", d.Channel, "topic", d.Topic,
				"err", addressless(sendErr))
		}
		return river.JobCancel(addressless(sendErr))
	case d.Attempt >= maxAttempts:
		out.Status = StatusFailed
	default:
		out.Status = StatusRetrying
	}
	_ = record(ctx, log, ds, d, out)
	return fmt.Errorf("%s %s: %w", d.Channel, d.Topic, addressless(sendErr))
}

// emailAddress is what a mail server's refusal quotes of its recipient: a
// local part may hold apostrophes (o'brien@…), a quote around the whole is
// not taken.
var emailAddress = regexp.MustCompile(`[^\s<>()\[\],;:"']+(?:'[^\s<>()\[\],;:"']+)*@[^\s<>()\[\],;:"']+`)

// addressless is err as River logs it and keeps it in its job list, which
// operators read: a mail server's words with any address left out ("550
// 5.1.1 <…>: Recipient address rejected"). The delivery log keeps the
// words as they were, for the one who sent. errors.Is and As still see err.
func addressless(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := emailAddress.ReplaceAllString(msg, "…"); clean != msg {
		return &redacted{msg: clean, err: err}
	}
	return err
}

type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// recordTimeout bounds writing one line of the log.
const recordTimeout = 10 * time.Second

// record writes the log. A failure to write it after a send does not fail
// the job: a retry would send the message again. It is written even when
// the job's context ends just as the send succeeded (JobTimeout, a
// shutdown): a send left unrecorded is a send a rescued job repeats.
func record(ctx context.Context, log *slog.Logger, ds recorder, d Delivery, out Outcome) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := ds.Record(ctx, d, out); err != nil && log != nil {
		log.Warn("delivery log", "job_id", d.JobID, "status", out.Status, "err", err)
	}
	return nil
}

func hostOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Host
	}
	return ""
}
