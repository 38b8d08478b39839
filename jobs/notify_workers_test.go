package jobs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/wneessen/go-mail"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/notify"
)

// fakeDeliveries answers Notification with n (or err) and keeps the log.
type fakeDeliveries struct {
	n   *Notification
	err error

	mu  sync.Mutex
	log []Outcome
}

func (f *fakeDeliveries) Notification(context.Context, Delivery) (*Notification, error) {
	return f.n, f.err
}
func (f *fakeDeliveries) Remind(context.Context, RemindArgs) error { return nil }
func (f *fakeDeliveries) Record(_ context.Context, _ Delivery, o Outcome) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, o)
	return nil
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
			// through finish directly.
			err = finish(ctx, nil, ds, Delivery{Attempt: c.attempt}, 25, Outcome{}, c.send)
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
