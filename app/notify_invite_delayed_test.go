package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestDelayedInvitationIsToldUntilSent: the invitation emailed for the
// opener (invite_email), answered "451 try again" by the mail server, is
// told in the opener's view (undelivered with retrying, next.say) while
// River retries it, instead of a plain wait for the join; another failed
// attempt writes nothing; the attempt the server accepts takes it back.
func TestDelayedInvitationIsToldUntilSent(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.smtp.Refuse(1000)
	const to = "pat@example.test"
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: to})
	if err != nil {
		t.Fatal(err)
	}
	if v := open.View; len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "not gone out") {
		t.Fatalf("the open says the invitation is late before any attempt: %+v, %q", v.Undelivered, v.Next.Say)
	}
	delayed := func(v *View) {
		t.Helper()
		if len(v.Undelivered) != 1 || v.Undelivered[0].What != UndeliveredInvitation || !v.Undelivered[0].Retrying ||
			v.Undelivered[0].To != to || v.Undelivered[0].At == "" ||
			!strings.HasPrefix(v.Next.Say, "Taasky's email inviting "+to+" has not gone out yet") ||
			!strings.Contains(v.Next.Say, "invite_url") || strings.Contains(v.Next.Say, "could not be delivered") {
			t.Fatalf("while the invitation is retried (%d attempts): undelivered %+v, next %q", nb.smtp.Attempts(), v.Undelivered, v.Next.Say)
		}
	}
	// until reads the opener's view until done says so (15 s at most).
	until := func(done func(*View) bool) *View {
		t.Helper()
		for end := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if v := mustRead(t, nb.roomsBundle, open.RoomToken); done(v) || time.Now().After(end) {
				return v
			}
		}
	}
	delayed(until(func(v *View) bool { return len(v.Undelivered) > 0 }))

	xmin := func() (n int64) {
		t.Helper()
		if err := nb.pool.QueryRow(nb.ctx, `SELECT xmin::text::bigint FROM rooms WHERE id = $1`, open.View.RoomID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	written, tried := xmin(), nb.smtp.Attempts()
	// Two more attempts offered: the first of them ended (River runs a
	// job's attempts one after the other).
	for end := time.Now().Add(15 * time.Second); nb.smtp.Attempts() < tried+2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d attempts, want %d", nb.smtp.Attempts(), tried+2)
		}
	}
	if xmin() != written {
		t.Fatal("a later failed attempt wrote the delay again")
	}
	delayed(mustRead(t, nb.roomsBundle, open.RoomToken))

	nb.smtp.Refuse(0)
	if m := nb.smtp.Wait(t, 1, 15*time.Second); len(m) != 1 || m[0].To[0] != to {
		t.Fatalf("mails: %+v", m)
	}
	if v := until(func(v *View) bool { return len(v.Undelivered) == 0 }); len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "not gone out") ||
		!strings.HasPrefix(v.Next.Say, "Waiting for the other side to join") {
		t.Fatalf("once sent: undelivered %+v, next %q", v.Undelivered, v.Next.Say)
	}
}

// TestDelayedInvitationNeverHidesARefusal: a failed attempt, recorded as
// the invitation's worker records it, ends a read waiting on the room;
// then the last attempt refused for good says the refusal (not a delay); a failed
// attempt recorded after the refusal leaves it; once someone joins,
// neither side is told of the invitation's email.
func TestDelayedInvitationNeverHidesARefusal(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	const to = "pat@example.test"
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: to})
	if err != nil {
		t.Fatal(err)
	}
	nb.settle(t) // the invitation went; what follows is recorded as its worker records it
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: open.View.RoomID, Side: negotiation.SideA, UserID: nb.a.OwnerUserID},
		JobID: 1, Attempt: 1, Channel: jobs.ChannelEmail}
	away := jobs.Outcome{Status: jobs.StatusRetrying, Recipient: to, Detail: "smtp: dial: connect: connection refused"}
	record := func(attempt int, o jobs.Outcome) {
		t.Helper()
		d.Attempt = attempt
		if err := nb.svc.Record(nb.ctx, d, o); err != nil {
			t.Fatal(err)
		}
	}
	lctx, stop := context.WithCancel(nb.ctx)
	defer stop()
	go Listen(lctx, nb.pool.Config().ConnConfig.Copy(), slog.New(slog.DiscardHandler), nb.rooms.RoomChanges(nil))
	woken := nb.waitingRead(t, open.RoomToken)
	record(1, away)
	if v := woken("the delay"); len(v.Undelivered) != 1 || !v.Undelivered[0].Retrying || !strings.Contains(v.Next.Say, "has not gone out yet") {
		t.Fatalf("after a failed attempt: %+v, %q", v.Undelivered, v.Next.Say)
	}
	record(jobs.EmailMaxAttempts, jobs.Outcome{Status: jobs.StatusFailed, Recipient: to, Detail: "smtp: dial: connect: connection refused"})
	refused := func(when string) {
		t.Helper()
		v := mustRead(t, nb.roomsBundle, open.RoomToken)
		if len(v.Undelivered) != 1 || v.Undelivered[0].Retrying || !strings.Contains(v.Next.Say, "could not be delivered") ||
			strings.Contains(v.Next.Say, "not gone out") {
			t.Fatalf("%s: undelivered %+v, next %q", when, v.Undelivered, v.Next.Say)
		}
	}
	refused("after the last attempt")
	record(2, away)
	refused("a failed attempt after the refusal")
	record(3, jobs.Outcome{Status: jobs.StatusSent, Recipient: to})
	refused("a sent attempt after the refusal")

	joined, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	record(4, away)
	for _, v := range []*View{mustRead(t, nb.roomsBundle, open.RoomToken), joined.View} {
		if len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "inviting") {
			t.Fatalf("after the join: undelivered %+v, next %q", v.Undelivered, v.Next.Say)
		}
	}
	if v, err := nb.rooms.Read(nb.ctx, nb.b, joined.RoomToken); err != nil || len(v.Undelivered) > 0 {
		t.Fatalf("the joiner's read: %+v, %v", v, err)
	}
}
