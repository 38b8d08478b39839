package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// TestRefusedRequestIsToldWhilePending: the email asking alpha's human to
// confirm, refused at RCPT by the mail server, is in alpha's view (the
// confirmation it asked for, next says so) until that confirmation is
// answered; beta's view never says it. A later request refused is told
// again, by its own id.
func TestRefusedRequestIsToldWhilePending(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.smtp.RefuseRecipient("alpha@example.test")
	ta, tb := nb.openJoined(t, OpenInput{}, "")
	refused := func(want string) *View {
		t.Helper()
		var v *View
		for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			var err error
			if v, err = nb.rooms.Read(nb.ctx, nb.a, ta); err != nil {
				t.Fatal(err)
			}
			if len(v.Undelivered) > 0 {
				break
			}
		}
		if len(v.Undelivered) != 1 || v.Undelivered[0].What != UndeliveredRequest || v.Undelivered[0].ConfirmationID != want ||
			v.Undelivered[0].To != "" || !strings.Contains(v.Next.Say, "could not be delivered") || strings.Contains(v.Next.Say, "they were notified") {
			t.Fatalf("alpha's view: undelivered %+v, next %q; want the request %s", v.Undelivered, v.Next.Say, want)
		}
		theirs, err := nb.rooms.Read(nb.ctx, nb.b, tb)
		if err != nil {
			t.Fatal(err)
		}
		if len(theirs.Undelivered) > 0 || strings.Contains(theirs.Next.Say, "delivered") {
			t.Fatalf("beta's view tells of alpha's refused mail: %+v, %q", theirs.Undelivered, theirs.Next.Say)
		}
		return v
	}

	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	refused(cv.ID)
	if log := nb.log(t, "alpha@example.test"); len(log) != 1 || log[0].Status != jobs.StatusFailed || !strings.Contains(log[0].Error, "550") {
		t.Fatalf("delivery log: %+v", log)
	}
	// Answered on the dashboard: nothing waits for the mail any more.
	if _, err := nb.rooms.DecideAsOwner(nb.ctx, nb.a.OwnerUserID, mustRoomID(t, nb.roomsBundle, ta), cv.ID, "", false); err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Read(nb.ctx, nb.a, ta)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Undelivered) > 0 || v.PendingConfirmation != nil {
		t.Fatalf("after the answer: undelivered %+v, pending %+v", v.Undelivered, v.PendingConfirmation)
	}
	again, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == cv.ID {
		t.Fatal("the second request has the first one's id")
	}
	refused(again.ID)
}

// mustRoomID is the id of the room of a's token.
func mustRoomID(t *testing.T, rb *roomsBundle, token string) int64 {
	t.Helper()
	v, err := rb.rooms.Read(rb.ctx, rb.a, token)
	if err != nil {
		t.Fatal(err)
	}
	return v.RoomID
}

// TestRefusedInvitationWakesAWaitAndAKeptView: the invitation's refusal,
// recorded as the invitation's worker records it, ends a read waiting on
// the room and changes the view a read kept (the room's seq is the same),
// naming the address the opener gave; once someone joins, it is no longer
// said, and a refusal recorded after the join notes nothing.
func TestRefusedInvitationWakesAWaitAndAKeptView(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	svc := rb.listeningNotifications(t)

	const wrong = "pat@nowhere.example.test"
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, InviteEmail: wrong})
	if err != nil {
		t.Fatal(err)
	}
	var jobID int64
	if err := rb.pool.QueryRow(rb.ctx, `SELECT id FROM river_job WHERE kind = $1`, jobs.InviteArgs{}.Kind()).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: open.View.RoomID, Side: negotiation.SideA, UserID: rb.a.OwnerUserID},
		JobID: jobID, Attempt: 1, Channel: jobs.ChannelEmail}
	refusal := jobs.Outcome{Status: jobs.StatusFailed, Recipient: wrong, Detail: "550 5.1.1 <" + wrong + ">: Recipient address rejected: User unknown"}

	kept, err := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Undelivered) > 0 || !kept.Next.Waiting() {
		t.Fatalf("before the refusal: %+v, next %+v", kept.Undelivered, kept.Next)
	}
	woken := rb.waitingRead(t, open.RoomToken)
	if err := svc.Record(rb.ctx, d, refusal); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*View{woken("the refusal"), mustRead(t, rb, open.RoomToken)} {
		if len(v.Undelivered) != 1 || v.Undelivered[0].What != UndeliveredInvitation || v.Undelivered[0].To != wrong ||
			!strings.HasPrefix(v.Next.Say, "Taasky's email inviting "+wrong+" could not be delivered") {
			t.Fatalf("after the refusal: undelivered %+v, next %q", v.Undelivered, v.Next.Say)
		}
	}

	if _, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Record(rb.ctx, d, refusal); err != nil {
		t.Fatal(err)
	}
	if v := mustRead(t, rb, open.RoomToken); len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "could not be delivered") {
		t.Fatalf("after the join: undelivered %+v, next %q", v.Undelivered, v.Next.Say)
	}
}

func mustRead(t *testing.T, rb *roomsBundle, token string) *View {
	t.Helper()
	v, err := rb.rooms.Read(rb.ctx, rb.a, token)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRefusedRequestIsAWebhook: the request's refusal is sent, signed, to
// the asking side's endpoints that asked for mail.undelivered, its room
// saying which confirmation; the other side's endpoint, which asked for
// every event, is sent nothing of it.
func TestRefusedRequestIsAWebhook(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.smtp.RefuseRecipient("alpha@example.test")
	rcvA := notifytest.NewWebhookEndpoint(t)
	_, secret, err := nb.hooks.CreateWebhook(nb.ctx, nb.a.OwnerUserID, "alpha", rcvA.URL, []string{string(HookMailUndelivered)})
	if err != nil {
		t.Fatal(err)
	}
	rcvA.SetSecrets(secret)
	rcvB, _, _ := nb.hookEndpoint(t, nb.b.OwnerUserID, "beta")
	ta, _ := nb.openJoined(t, OpenInput{}, "")
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	got := rcvA.Wait(t, 1, 15*time.Second)
	var p struct {
		Type string `json:"type"`
		Data struct {
			Side string `json:"side"`
			Room struct {
				Undelivered []UndeliveredView `json:"undelivered"`
			} `json:"room"`
		} `json:"data"`
	}
	if err := json.Unmarshal(got[0].Body, &p); err != nil {
		t.Fatal(err)
	}
	if len(got[0].Verified) != 1 || p.Type != "mail.undelivered" || p.Data.Side != "a" || len(p.Data.Room.Undelivered) != 1 ||
		p.Data.Room.Undelivered[0].ConfirmationID != cv.ID {
		t.Fatalf("alpha's webhook: %s (verified %v)", got[0].Body, got[0].Verified)
	}
	nb.settle(t)
	nb.settleHooks(t)
	for _, w := range rcvB.Received() {
		if w.Type == string(HookMailUndelivered) || bytes.Contains(w.Body, []byte("undelivered")) {
			t.Fatalf("beta was sent alpha's refused mail: %s", w.Body)
		}
	}
	if n := len(rcvA.Received()); n != 1 {
		t.Fatalf("alpha's endpoint got %d requests, want 1", n)
	}
}

// TestDelayedRequestIsToldUntilSent: while the email asking alpha's human
// to confirm fails attempts that River retries (the mail server away),
// alpha's view says it has not gone out yet, never "they were notified",
// and a read waiting on the room is woken by it; the email the server then
// accepts takes it back; a delay after a refusal for good leaves the
// refusal; beta's view never says any of it; the delay is written once.
func TestDelayedRequestIsToldUntilSent(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	svc := rb.listeningNotifications(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	roomID := mustRoomID(t, rb, ta)
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicRequest, RoomID: roomID, Side: negotiation.SideA, UserID: rb.a.OwnerUserID,
		ConfirmationID: cv.ID}, JobID: 1, Attempt: 1, Channel: jobs.ChannelEmail}
	away := jobs.Outcome{Status: jobs.StatusRetrying, Recipient: "alpha@example.test", Detail: "smtp: dial: connect: connection refused"}
	seq := func() (n int64) {
		t.Helper()
		if err := rb.pool.QueryRow(rb.ctx, `SELECT xmin::text::bigint FROM rooms WHERE id = $1`, roomID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	theirs := func() {
		t.Helper()
		v, err := rb.rooms.Read(rb.ctx, rb.b, tb)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.Undelivered) > 0 || strings.Contains(v.Next.Say, "gone out") {
			t.Fatalf("beta's view tells of alpha's mail: %+v, %q", v.Undelivered, v.Next.Say)
		}
	}

	if v := mustRead(t, rb, ta); len(v.Undelivered) > 0 || !strings.Contains(v.Next.Say, "they were notified") {
		t.Fatalf("before any attempt: %+v, %q", v.Undelivered, v.Next.Say)
	}
	woken := rb.waitingRead(t, ta)
	if err := svc.Record(rb.ctx, d, away); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*View{woken("the delay"), mustRead(t, rb, ta)} {
		if v == nil || len(v.Undelivered) != 1 || !v.Undelivered[0].Retrying || v.Undelivered[0].ConfirmationID != cv.ID ||
			!strings.Contains(v.Next.Say, "has not gone out yet") || strings.Contains(v.Next.Say, "they were notified") ||
			strings.Contains(v.Next.Say, "could not be delivered") {
			t.Fatalf("while the mail is retried: %+v", v)
		}
	}
	theirs()
	// A build that knows only refusals ("request") must not read the delay
	// as one (a rolling upgrade, a rollback).
	var asRefusal bool
	if err := rb.pool.QueryRow(rb.ctx, `SELECT coalesce(undelivered->'a' ? 'request', false) FROM rooms WHERE id = $1`, roomID).Scan(&asRefusal); err != nil || asRefusal {
		t.Fatalf("the delay is written where a refusal is (%v)", err)
	}
	written := seq()
	d.Attempt = 2
	if err := svc.Record(rb.ctx, d, away); err != nil {
		t.Fatal(err)
	}
	if seq() != written {
		t.Fatal("a second failed attempt wrote the delay again")
	}

	d.Attempt = 3
	if err := svc.Record(rb.ctx, d, jobs.Outcome{Status: jobs.StatusSent, Recipient: "alpha@example.test"}); err != nil {
		t.Fatal(err)
	}
	if v := mustRead(t, rb, ta); len(v.Undelivered) > 0 || !strings.Contains(v.Next.Say, "they were notified") {
		t.Fatalf("once sent: %+v, %q", v.Undelivered, v.Next.Say)
	}

	// Refused for good, then a reminder's attempt fails: still refused.
	d.Attempt = 1
	if err := svc.Record(rb.ctx, d, jobs.Outcome{Status: jobs.StatusFailed, Recipient: "alpha@example.test", Detail: "550 no such user"}); err != nil {
		t.Fatal(err)
	}
	d.Topic, d.JobID = jobs.TopicReminder, 2
	if err := svc.Record(rb.ctx, d, away); err != nil {
		t.Fatal(err)
	}
	if v := mustRead(t, rb, ta); len(v.Undelivered) != 1 || v.Undelivered[0].Retrying || !strings.Contains(v.Next.Say, "could not be delivered") {
		t.Fatalf("a delay after the refusal: %+v, %q", v.Undelivered, v.Next.Say)
	}
	theirs()
}
