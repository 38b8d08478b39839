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
	var jobID int64
	if err := nb.pool.QueryRow(nb.ctx, `SELECT id FROM river_job WHERE kind = $1`, jobs.InviteArgs{}.Kind()).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	// ended waits until the job's attempt after the one it was at ended
	// (a failed attempt: retryable; a sent one: completed) and returns
	// its state.
	ended := func(after int) string {
		t.Helper()
		for end := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			var n int
			var s string
			if err := nb.pool.QueryRow(nb.ctx, `SELECT attempt, state FROM river_job WHERE id = $1`, jobID).Scan(&n, &s); err != nil {
				t.Fatal(err)
			}
			if n > after && (s == "retryable" || s == "completed") {
				return s
			}
			if time.Now().After(end) {
				t.Fatalf("the invitation's job: attempt %d %s, waiting for an attempt after %d to end", n, s, after)
			}
		}
	}
	attempt := func() (n int) {
		t.Helper()
		if err := nb.pool.QueryRow(nb.ctx, `SELECT attempt FROM river_job WHERE id = $1`, jobID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// retried runs the job's next attempt now (River's own step would be
	// seconds away) and returns how it ended.
	retried := func() string {
		t.Helper()
		n := attempt()
		if _, err := nb.rc.JobRetry(nb.ctx, jobID); err != nil {
			t.Fatal(err)
		}
		return ended(n)
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
	if s := ended(0); s != "retryable" {
		t.Fatalf("the first attempt: %s", s)
	}
	delayed(mustRead(t, nb.roomsBundle, open.RoomToken))

	xmin := func() (n int64) {
		t.Helper()
		if err := nb.pool.QueryRow(nb.ctx, `SELECT xmin::text::bigint FROM rooms WHERE id = $1`, open.View.RoomID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	written := xmin()
	if s := retried(); s != "retryable" {
		t.Fatalf("the second attempt: %s", s)
	}
	if xmin() != written {
		t.Fatal("a second failed attempt wrote the delay again")
	}
	delayed(mustRead(t, nb.roomsBundle, open.RoomToken))

	nb.smtp.Refuse(0)
	if s := retried(); s != "completed" {
		t.Fatalf("the attempt the server takes: %s", s)
	}
	if m := nb.smtp.Wait(t, 1, 15*time.Second); len(m) != 1 || m[0].To[0] != to {
		t.Fatalf("mails: %+v", m)
	}
	if v := mustRead(t, nb.roomsBundle, open.RoomToken); len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "not gone out") ||
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
	for !nb.rooms.waiters.listening.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	type answer struct {
		v   *View
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := nb.rooms.ReadWait(nb.ctx, nb.a, open.RoomToken, MaxWait)
		done <- answer{v, err}
	}()
	for !nb.waitsOn(open.RoomToken) {
		time.Sleep(time.Millisecond)
	}
	record(1, away)
	var got answer
	select {
	case got = <-done:
	case <-time.After(MaxWait / 2):
		t.Fatal("the delay did not end the waiting read")
	}
	if got.err != nil {
		t.Fatal(got.err)
	}
	if v := got.v; len(v.Undelivered) != 1 || !v.Undelivered[0].Retrying || !strings.Contains(v.Next.Say, "has not gone out yet") {
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
