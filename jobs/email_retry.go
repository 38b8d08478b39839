package jobs

import (
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// An email a person waits for should go within minutes of its mail server
// answering again. River's own backoff (attempt⁴ seconds) spaces the
// attempts ever further apart: a mail due during an hour's outage went up
// to 40 minutes after the server was back, 68 after two hours. Emails
// (EmailArgs, InviteArgs, MemberInviteArgs) follow their own schedule
// (RetryPolicy) instead: River's steps while they are short, at most emailQuickStep apart
// during the mail's first emailQuickFor, then at most emailSlowStep apart,
// for EmailMaxAttempts attempts in all: about three days, the life of an
// invitation, after which what a mail asks has mostly ended anyway.
const (
	emailQuickFor  = 6 * time.Hour
	emailQuickStep = 5 * time.Minute
	emailSlowStep  = time.Hour
	// EmailMaxAttempts: 4 of River's steps (6 min), 71 quick ones (to the
	// 6th hour), then 66 slow ones (to about the 72nd).
	EmailMaxAttempts = 141
)

// emailNextRetry is when an email whose attempt number attempt (from 1)
// just failed (River counts the errors) is tried again, for a job
// created at created.
func emailNextRetry(attempt int, created, now time.Time) time.Time {
	a := time.Duration(max(attempt, 1))
	step := min(a*a*a*a*time.Second, emailSlowStep)
	if now.Sub(created) < emailQuickFor {
		step = min(step, emailQuickStep)
	}
	return now.Add(step)
}

// RetryPolicy is the River client's: emails on their own schedule
// (emailNextRetry), other jobs on River's, unless their worker has its own
// (WebhookWorker).
type RetryPolicy struct{ river.DefaultClientRetryPolicy }

// NextRetry is when job, whose attempt just failed, is tried again.
func (p *RetryPolicy) NextRetry(job *rivertype.JobRow) time.Time {
	switch job.Kind {
	case EmailArgs{}.Kind(), PersonReminderArgs{}.Kind(), InviteArgs{}.Kind(), MemberInviteArgs{}.Kind():
		return emailNextRetry(len(job.Errors)+1, job.CreatedAt, time.Now())
	}
	return p.DefaultClientRetryPolicy.NextRetry(job)
}
