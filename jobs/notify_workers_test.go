package jobs

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"
	"github.com/wneessen/go-mail"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify"
)

// fakeDeliveries answers Notification with n (or err) and keeps the log;
// sent is what Sent says.
type fakeDeliveries struct {
	n    *Notification
	err  error
	sent bool
	// lately is what PushedLately says.
	lately bool

	mu      sync.Mutex
	log     []Outcome
	asked   int // Notification calls
	checked int // Sent calls
}

func (f *fakeDeliveries) Notification(context.Context, Delivery) (*Notification, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	return f.n, f.err
}
func (f *fakeDeliveries) Sent(context.Context, Delivery) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checked++
	return f.sent, nil
}
func (f *fakeDeliveries) Record(_ context.Context, _ Delivery, o Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, o)
	return nil
}

func (f *fakeDeliveries) PushedLately(context.Context, Delivery, time.Duration) (bool, error) {
	return f.lately, nil
}

type fakeMailer struct {
	err  error
	sent int
}

func (m *fakeMailer) Send(context.Context, *mail.Msg) error {
	if m.err != nil {
		return m.err
	}
	m.sent++
	return nil
}

// TestEmailWorkerOutcomes: what River is told and what the log says, for a
// send, a skip, a failure worth a retry, the last attempt, and a refusal
// for good.
func TestEmailWorkerOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	note := &Notification{To: "bob@example.test", Now: time.Now(), RoomURL: "http://x/rooms/1", OneTapURL: "http://x/c/ot_1"}
	args := EmailArgs{Notice: Notice{Topic: TopicRequest, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: "cf_1"}}
	temp := errors.New("451 try again")
	cases := []struct {
		name     string
		err      error // from Notification
		send     error
		attempt  int
		event    river.EventKind
		status   Status
		mailSent int
	}{
		{"sent", nil, nil, 1, river.EventKindJobCompleted, StatusSent, 1},
		{"skipped", Skip("the confirmation is no longer pending"), nil, 1, river.EventKindJobCompleted, StatusSkipped, 0},
		{"retrying", nil, temp, 1, river.EventKindJobFailed, StatusRetrying, 0},
		{"out of attempts", nil, temp, 25, river.EventKindJobFailed, StatusFailed, 0},
		{"refused for good", nil, &notify.PermanentError{Err: errors.New("550 no such user")}, 1, river.EventKindJobCancelled, StatusFailed, 0},
	}
	for _, c := range cases {
		ds := &fakeDeliveries{n: note, err: c.err}
		mailer := &fakeMailer{err: c.send}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: ds, Mailer: mailer, From: "taasky@example.test"})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, tx, args, &river.InsertOpts{MaxAttempts: 25})
		_ = tx.Rollback(ctx)
		if c.attempt > 1 {
			// rivertest works a job at attempt 1; the last attempt is checked
			// through finish directly, which hands River the send's error.
			if err := finish(ctx, nil, ds, Delivery{Attempt: c.attempt}, 25, Outcome{}, c.send); !errors.Is(err, c.send) {
				t.Errorf("%s: finish returned %v, want the send's error", c.name, err)
			}
			ds.log = ds.log[1:]
		} else if res.EventKind != c.event {
			t.Errorf("%s: River event %s, want %s (%v)", c.name, res.EventKind, c.event, err)
		}
		if len(ds.log) != 1 || ds.log[0].Status != c.status || mailer.sent != c.mailSent {
			t.Errorf("%s: log %+v, %d sent", c.name, ds.log, mailer.sent)
		}
	}
}

type fakeInvitations struct {
	fakeDeliveries
	args InviteArgs
}

func (f *fakeInvitations) Invitation(_ context.Context, _ Delivery, a InviteArgs) (*Notification, error) {
	f.args = a
	return f.n, f.err
}

// TestInviteWorker: the invitation is mailed to the address of the job and
// logged for the opener; one no longer open is skipped, logged with its
// address.
func TestInviteWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	args := InviteArgs{RoomID: 7, UserID: 3, To: "pat@example.test", Code: []byte("sealed")}
	note := &Notification{To: "pat@example.test", Now: time.Now(), InviteURL: "http://x/i/abc", Them: "Alpha", Title: "Lunch"}
	for _, c := range []struct {
		err      error
		status   Status
		mailSent int
	}{{nil, StatusSent, 1}, {Skip("the invitation was answered or withdrawn"), StatusSkipped, 0}} {
		inv := &fakeInvitations{fakeDeliveries: fakeDeliveries{n: note, err: c.err}}
		mailer := &fakeMailer{}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &InviteWorker{Invitations: inv, Mailer: mailer, From: "taasky@example.test"})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, tx, args, nil)
		_ = tx.Rollback(ctx)
		if err != nil || res.EventKind != river.EventKindJobCompleted || inv.args.To != args.To || string(inv.args.Code) != "sealed" {
			t.Fatalf("%s: %v %+v", c.status, err, res)
		}
		if len(inv.log) != 1 || inv.log[0].Status != c.status || inv.log[0].Recipient != "pat@example.test" || mailer.sent != c.mailSent {
			t.Errorf("%s: log %+v, %d sent", c.status, inv.log, mailer.sent)
		}
	}
}

// TestSentBeforeSendsNothing: a second attempt of a job whose delivery the
// log already says was sent (a rescued job: the process died after the
// server accepted the message, before River recorded the completion)
// completes without asking what to say, sending, or writing the log, for
// each worker that sends. A log that cannot be read fails the attempt, for
// a retry, without sending. A first attempt has no earlier one: it sends
// without reading the log.
func TestSentBeforeSendsNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	note := &Notification{To: "bob@example.test", Now: time.Now(), RoomURL: "http://x/rooms/1", OneTapURL: "http://x/c/ot_1",
		Push: &Device{Endpoint: "http://127.0.0.1:9/push/x"}}
	notice := Notice{Topic: TopicRequest, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: "cf_1"}
	inserter, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// rescued works args as River gives back the job of a process that died
	// during its first attempt: as the second.
	rescued := func(args river.JobArgs, work func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error)) (*rivertest.WorkResult, error) {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		res, err := inserter.InsertTx(ctx, tx, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Job.Attempt = 1 // WorkJob makes it the next
		return work(tx, res.Job)
	}

	ds := &fakeDeliveries{n: note, sent: true}
	mailer := &fakeMailer{}
	email := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: ds, Mailer: mailer, From: "taasky@example.test"})
	res, err := rescued(EmailArgs{Notice: notice}, func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return email.WorkJob(ctx, t, tx, job)
	})
	if err != nil || res.EventKind != river.EventKindJobCompleted || mailer.sent != 0 || ds.asked != 0 || len(ds.log) != 0 {
		t.Errorf("email sent before: %v %+v; %d sent, %d asked, log %+v", err, res, mailer.sent, ds.asked, ds.log)
	}

	inv := &fakeInvitations{fakeDeliveries: fakeDeliveries{n: note, sent: true}}
	invite := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &InviteWorker{Invitations: inv, Mailer: mailer, From: "taasky@example.test"})
	res, err = rescued(InviteArgs{RoomID: 7, UserID: 3, To: "pat@example.test", Code: []byte("sealed")}, func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return invite.WorkJob(ctx, t, tx, job)
	})
	if err != nil || res.EventKind != river.EventKindJobCompleted || mailer.sent != 0 || inv.args.To != "" || len(inv.log) != 0 {
		t.Errorf("invitation sent before: %v %+v; %d sent, asked for %+v, log %+v", err, res, mailer.sent, inv.args, inv.log)
	}

	pds := &fakeDeliveries{n: note, sent: true}
	push := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &PushWorker{Deliveries: pds, Pusher: &notify.Pusher{}})
	res, err = rescued(PushArgs{Notice: notice, SubscriptionID: 5}, func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return push.WorkJob(ctx, t, tx, job)
	})
	if err != nil || res.EventKind != river.EventKindJobCompleted || pds.asked != 0 || len(pds.log) != 0 {
		t.Errorf("push sent before: %v %+v; %d asked, log %+v", err, res, pds.asked, pds.log)
	}

	hds, hn := &fakeDeliveries{n: note, sent: true}, &fakeHookNotices{}
	hookOff := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &WebhookDisabledWorker{Notices: hn, Deliveries: hds, Mailer: mailer, From: "taasky@example.test"})
	res, err = rescued(WebhookDisabledArgs{AccountID: 1, EndpointID: 2, UserID: 3, At: time.Now()}, func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return hookOff.WorkJob(ctx, t, tx, job)
	})
	if err != nil || res.EventKind != river.EventKindJobCompleted || mailer.sent != 0 || hn.asked != 0 || len(hds.log) != 0 {
		t.Errorf("webhook notice sent before: %v %+v; %d sent, %d asked, log %+v", err, res, mailer.sent, hn.asked, hds.log)
	}

	broken := &unreadableLog{fakeDeliveries: fakeDeliveries{n: note}}
	email = rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: broken, Mailer: mailer, From: "taasky@example.test"})
	res, err = rescued(EmailArgs{Notice: notice}, func(tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return email.WorkJob(ctx, t, tx, job)
	})
	if err == nil || res.EventKind != river.EventKindJobFailed || mailer.sent != 0 || broken.asked != 0 {
		t.Errorf("unreadable log: %v %+v; %d sent, %d asked", err, res, mailer.sent, broken.asked)
	}

	first := &fakeDeliveries{n: note}
	email = rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: first, Mailer: mailer, From: "taasky@example.test"})
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	res, err = email.Work(ctx, t, tx, EmailArgs{Notice: notice}, nil)
	if err != nil || res.EventKind != river.EventKindJobCompleted || mailer.sent != 1 || first.checked != 0 || len(first.log) != 1 {
		t.Errorf("first attempt: %v %+v; %d sent, log read %d times, log %+v", err, res, mailer.sent, first.checked, first.log)
	}
}

// unreadableLog is a delivery log that cannot be read.
type unreadableLog struct{ fakeDeliveries }

func (*unreadableLog) Sent(context.Context, Delivery) (bool, error) {
	return false, errors.New("connection refused")
}

// TestFirstFetch: only a job River fetches for the first time skips the
// delivery log. A snoozed job, or one cut off at shutdown, comes back with
// its attempt taken off but one more fetch in AttemptedBy.
func TestFirstFetch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		attempt int
		by      []string
		first   bool
	}{
		{1, []string{"a"}, true},
		{2, []string{"a", "b"}, false}, // retried, or rescued after its process died
		{1, []string{"a", "a"}, false}, // snoozed, or cut off at shutdown, and fetched again
		{2, []string{"b"}, false},      // AttemptedBy trimmed (River keeps the last 100)
	} {
		if got := firstFetch(&rivertype.JobRow{Attempt: c.attempt, AttemptedBy: c.by}); got != c.first {
			t.Errorf("attempt %d by %v: first %v, want %v", c.attempt, c.by, got, c.first)
		}
	}
}

// fakeHookNotices answers WebhookDisabledMail, counting the questions.
type fakeHookNotices struct{ asked int }

func (f *fakeHookNotices) WebhookDisabledMail(context.Context, WebhookDisabledArgs) (*WebhookDisabled, error) {
	f.asked++
	return &WebhookDisabled{To: "ann@example.test", AccountName: "Alpha", URL: "https://hooks.example/x", Now: time.Now()}, nil
}

// TestEmailErrorsToRiverHoldNoAddress: a mail server's refusal usually
// quotes the recipient ("550 5.1.1 <bob@…>: Recipient address rejected").
// What the worker returns, River logs ("Job errored") and keeps in its job
// list for operators, for days; and the address may be a stranger's, whom
// an agent invited. River gets the refusal with the address left out; the
// delivery log, which the sender reads, keeps the server's words.
func TestEmailErrorsToRiverHoldNoAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	note := &Notification{To: "bob@example.test", Now: time.Now(), RoomURL: "http://x/rooms/1", OneTapURL: "http://x/c/ot_1"}
	args := EmailArgs{Notice: Notice{Topic: TopicRequest, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: "cf_1"}}
	said := "smtp: RCPT TO: 550 5.1.1 <Bob.Smith+x@Example.test>: Recipient address rejected"
	for _, send := range []error{errors.New(said), &notify.PermanentError{Err: errors.New(said)}} {
		ds := &fakeDeliveries{n: note}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: ds, Mailer: &fakeMailer{err: send}, From: "taasky@example.test"})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.Work(ctx, t, tx, args, &river.InsertOpts{MaxAttempts: 25})
		if res == nil || len(res.Job.Errors) != 1 {
			t.Fatalf("the job after its attempt: %+v, %v", res, err)
		}
		_ = tx.Rollback(ctx)
		if shown := res.Job.Errors[0].Error; strings.Contains(strings.ToLower(shown), "example.test") || !strings.Contains(shown, "Recipient address rejected") {
			t.Errorf("River keeps %q", shown)
		}
		if err != nil && !errors.Is(err, send) {
			t.Errorf("River's error does not wrap the send's: %v", err)
		}
		if len(ds.log) != 1 || !strings.Contains(ds.log[0].Detail, "Bob.Smith+x@Example.test") {
			t.Errorf("the delivery log lost the server's words: %+v", ds.log)
		}
	}
}

// TestPushCoalesce: a request's push queued just now, after another push
// about its room to its device, waits (snoozed, nothing asked or logged)
// until PushCoalesce after it was queued; then, or when it runs late, it
// goes at once (Notification decides whether it is still pending). A
// notice that no move makes stale never waits, nor a push that follows
// none.
func TestPushCoalesce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	inserter, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	note := &Notification{Now: time.Now(), RoomURL: "http://x/rooms/1"} // no device: skipped once asked
	for _, c := range []struct {
		name   string
		topic  Topic
		lately bool
		age    time.Duration
		waits  bool
	}{
		{"a request after a push", TopicRequest, true, 0, true},
		{"a reminder after a push", TopicReminder, true, time.Second, true},
		{"a request after its wait", TopicRequest, true, PushCoalesce, false},
		{"a request run late", TopicRequest, true, time.Hour, false},
		{"a notice after a push", TopicAgreed, true, 0, false},
		{"a request after no push", TopicRequest, false, 0, false},
	} {
		ds := &fakeDeliveries{n: note, lately: c.lately}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &PushWorker{Deliveries: ds, Pusher: &notify.Pusher{}})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		args := PushArgs{Notice: Notice{Topic: c.topic, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: "cf_1"}, SubscriptionID: 5}
		ins, err := inserter.InsertTx(ctx, tx, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		// rivertest works the job as the table has it.
		if _, err := tx.Exec(ctx, `UPDATE river_job SET created_at = $2 WHERE id = $1`, ins.Job.ID, time.Now().Add(-c.age)); err != nil {
			t.Fatal(err)
		}
		ins.Job.Attempt = 0
		res, err := w.WorkJob(ctx, t, tx, ins.Job)
		_ = tx.Rollback(ctx)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if waited := res.EventKind == river.EventKindJobSnoozed; waited != c.waits || waited == (ds.asked == 1) || waited == (len(ds.log) == 1) {
			t.Errorf("%s: River event %s, asked %d times, log %+v; want waiting %v", c.name, res.EventKind, ds.asked, ds.log, c.waits)
		}
	}
}

// TestAddresslessLeavesNoPartOfTheAddress: what a mail server quotes of a
// recipient goes whole, an apostrophe in its local part included, and the
// quotes around it stay.
func TestAddresslessLeavesNoPartOfTheAddress(t *testing.T) {
	for said, want := range map[string]string{
		"550 5.1.1 <o'brien@example.test>: Recipient address rejected": "550 5.1.1 <…>: Recipient address rejected",
		"550 'bob@example.test' unknown":                               "550 '…' unknown",
		"550 user d'arcy.o'neil@example.test does not exist":           "550 user … does not exist",
		"451 try again later":                                          "451 try again later",
	} {
		if got := addressless(errors.New(said)).Error(); got != want {
			t.Errorf("%q: %q, want %q", said, got, want)
		}
	}
}

// TestInOrderWaits: a message that waits for an earlier one about its
// room is snoozed until just after that one's next attempt, never longer
// than orderWaitMax (an earlier job cancelled in River's UI writes no
// outcome that would release it), and briefly when that one is due now;
// another error is a failed attempt, as it is.
func TestInOrderWaits(t *testing.T) {
	t.Parallel()
	d := Delivery{Notice: Notice{Topic: TopicReminder, RoomID: 1, UserID: 2}, Channel: ChannelEmail}
	snooze := func(next time.Time) time.Duration {
		t.Helper()
		var s *rivertype.JobSnoozeError
		if err := inOrder(nil, d, WaitFor(next)); !errors.As(err, &s) {
			t.Fatalf("waiting for %v: %v, want a snooze", next, err)
		}
		return s.Duration
	}
	if got := snooze(time.Now().Add(10 * time.Second)); got <= 10*time.Second || got > 10*time.Second+orderMargin {
		t.Errorf("the earlier one's next attempt in 10 s: snoozed %v, want just after it", got)
	}
	if got := snooze(time.Now().Add(time.Hour)); got != orderWaitMax {
		t.Errorf("the earlier one's next attempt in an hour: snoozed %v, want %v", got, orderWaitMax)
	}
	if got := snooze(time.Now().Add(-time.Second)); got != orderPoll {
		t.Errorf("the earlier one due now: snoozed %v, want %v", got, orderPoll)
	}
	other := errors.New("connection refused")
	if err := inOrder(nil, d, other); err != other {
		t.Errorf("another error: %v, want it as it is", err)
	}
}

// cancelledAtSend is a mailer whose send is accepted just as the job's
// context ends (its JobTimeout, a shutdown).
type cancelledAtSend struct {
	cancel context.CancelFunc
	sent   int
}

func (m *cancelledAtSend) Send(context.Context, *mail.Msg) error {
	m.sent++
	m.cancel()
	return nil
}

// ctxLog is a delivery log that, as a database would, writes nothing on a
// context that has ended.
type ctxLog struct{ fakeDeliveries }

func (l *ctxLog) Record(ctx context.Context, d Delivery, o Outcome) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.fakeDeliveries.Record(ctx, d, o)
}

// TestSentIsLoggedWhenTheJobEnds: a message the server accepted just as
// the job's context ended is logged sent all the same, so that the job,
// given back by River's rescue, sends nothing again (sentBefore).
func TestSentIsLoggedWhenTheJobEnds(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	note := &Notification{To: "bob@example.test", Now: time.Now(), RoomURL: "http://x/rooms/1", OneTapURL: "http://x/c/ot_1"}
	ds := &ctxLog{fakeDeliveries{n: note}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mailer := &cancelledAtSend{cancel: cancel}
	w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &EmailWorker{Deliveries: ds, Mailer: mailer, From: "taasky@example.test"})
	tx, err := pool.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	_, _ = w.Work(ctx, t, tx, EmailArgs{Notice: Notice{Topic: TopicRequest, RoomID: 1, Side: "b", UserID: 2, ConfirmationID: "cf_1"}}, nil)
	if mailer.sent != 1 || len(ds.log) != 1 || ds.log[0].Status != StatusSent {
		t.Fatalf("%d sent, log %+v; want it logged sent", mailer.sent, ds.log)
	}
}

// TestPushWithoutWebPush: where Web Push is not configured (no VAPID
// keys), a push job ends at once, logged skipped with the reason, and
// asks the service nothing.
func TestPushWithoutWebPush(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	ds := &fakeDeliveries{n: &Notification{Now: time.Now(), Push: &Device{Endpoint: "http://127.0.0.1:9/push/x"}}}
	w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &PushWorker{Deliveries: ds})
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	res, err := w.Work(ctx, t, tx, PushArgs{Notice: Notice{Topic: TopicAgreed, RoomID: 1, Side: "b", UserID: 2}, SubscriptionID: 5}, nil)
	if err != nil || res.EventKind != river.EventKindJobCompleted || ds.asked != 0 || len(ds.log) != 1 || ds.log[0].Status != StatusSkipped {
		t.Fatalf("a push without Web Push: %v %+v; asked %d times, log %+v; want it skipped", err, res, ds.asked, ds.log)
	}
}

// fakeMemberInvitations answers MemberInviteMail, counting the questions.
type fakeMemberInvitations struct{ asked int }

func (f *fakeMemberInvitations) MemberInviteMail(_ context.Context, a MemberInviteArgs) (*MemberInvite, error) {
	f.asked++
	return &MemberInvite{ID: "inv", To: a.To, AccountName: "Alpha", Role: "member", URL: "http://x/join/t",
		ExpiresAt: time.Now().Add(time.Hour), Now: time.Now()}, nil
}

// TestMemberInviteSentBefore: an account's invitation that a person sent,
// given back by River after its process died once the inviter's log said
// it was sent, sends nothing again; one an operator sent has no log (the
// operator has none), and is sent.
func TestMemberInviteSentBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	inserter, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		by     int64 // who invited (0: an operator)
		sent   int
		logged int
	}{
		{"a person's, sent before", 3, 0, 0},
		{"an operator's", 0, 1, 0},
	} {
		ds, inv, mailer := &fakeDeliveries{sent: true}, &fakeMemberInvitations{}, &fakeMailer{}
		w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{}, &MemberInviteWorker{Invitations: inv, Deliveries: ds,
			Mailer: mailer, From: "taasky@example.test"})
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ins, err := inserter.InsertTx(ctx, tx, MemberInviteArgs{AccountID: 1, InvitationID: 2, To: "pat@example.test", Token: []byte("sealed"), UserID: c.by}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ins.Job.Attempt, ins.Job.AttemptedBy = 1, []string{"a"} // worked again, as the second
		res, err := w.WorkJob(ctx, t, tx, ins.Job)
		_ = tx.Rollback(ctx)
		if err != nil || res.EventKind != river.EventKindJobCompleted || mailer.sent != c.sent || len(ds.log) != c.logged {
			t.Errorf("%s: %v %+v; %d sent, log %+v; want %d sent, %d logged", c.name, err, res, mailer.sent, ds.log, c.sent, c.logged)
		}
	}
}

// TestOutboundShare: an owner works at most its share of outbound jobs
// at once (the next is snoozed), another owner is not held by it, a job
// that ends makes room; a share of 0, or none, holds nobody.
func TestOutboundShare(t *testing.T) {
	t.Parallel()
	job := &rivertype.JobRow{}
	s := NewOutboundShare(2)
	var leaves []func()
	for i := range 2 {
		leave, snooze := s.enter("account 1", job)
		if snooze != nil {
			t.Fatalf("job %d of 2: snoozed", i+1)
		}
		leaves = append(leaves, leave)
	}
	if _, snooze := s.enter("account 1", job); snooze == nil {
		t.Fatal("a third job of the account at once: not snoozed")
	}
	if leave, snooze := s.enter("account 2", job); snooze != nil {
		t.Fatal("another account's job: snoozed")
	} else {
		leave()
	}
	leaves[0]()
	if _, snooze := s.enter("account 1", job); snooze != nil {
		t.Fatal("after one ended: snoozed")
	}
	for _, open := range []*OutboundShare{NewOutboundShare(0), nil} {
		for range 5 {
			if _, snooze := open.enter("account 1", job); snooze != nil {
				t.Fatalf("share %+v: snoozed", open)
			}
		}
	}
}
