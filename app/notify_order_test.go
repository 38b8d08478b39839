package app

import (
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/notify/notifytest"
)

// retryLater retries every failed job orderRetry later: long enough for a
// test to bring its server back and queue a later message while the
// earlier one waits for its retry, as after an outage (jobs.RetryPolicy
// waits up to 5 minutes).
type retryLater struct{}

const orderRetry = 4 * time.Second

func (retryLater) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(orderRetry) }

// setupOrder is setupNotify with failed jobs retried orderRetry later,
// and a room whose deadline is 40 minutes away, in which alpha's agent
// asks alpha to withdraw while the mail server is away (and the push
// service, when down is set): the request waits for its retry. Its
// reminder falls due after 20 minutes (negotiation.Reminders).
func setupOrder(t *testing.T, down func(*notifyBundle)) (*notifyBundle, string, *ConfirmationView) {
	t.Helper()
	nb := setupNotifyRetry(t, true, retryLater{})
	deadline := nb.rooms.now().Add(40 * time.Minute)
	ta, _ := nb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	nb.settle(t)
	down(nb)
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, ta, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	return nb, ta, cv
}

// waitRetrying waits until alpha's delivery log says the request's
// message on channel failed an attempt and waits for the next.
func (nb *notifyBundle) waitRetrying(t *testing.T, channel jobs.Channel) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, d := range nb.log(t, "alpha@example.test") {
			if d.Topic == jobs.TopicRequest && d.Channel == channel && d.Status == jobs.StatusRetrying {
				return
			}
		}
	}
	t.Fatalf("the request's %s is not retrying: %+v", channel, nb.log(t, "alpha@example.test"))
}

// mailsTo are the subjects of the mails to addr the server accepted, in
// the order it accepted them, once it has n (the test fails after 15 s).
func (nb *notifyBundle) mailsTo(t *testing.T, addr string, n int) []string {
	t.Helper()
	if n > 0 {
		nb.mailTo(t, addr, n)
	}
	var subjects []string
	for _, m := range nb.smtp.Mails() {
		if len(m.To) == 1 && m.To[0] == addr {
			p, err := notify.Parse(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			subjects = append(subjects, p.Subject)
		}
	}
	return subjects
}

// logLine is the line of alpha's delivery log of topic on channel.
func (nb *notifyBundle) logLine(t *testing.T, topic jobs.Topic, channel jobs.Channel) Delivery {
	t.Helper()
	for _, d := range nb.log(t, "alpha@example.test") {
		if d.Topic == topic && d.Channel == channel {
			return d
		}
	}
	t.Fatalf("no %s %s in alpha's log: %+v", channel, topic, nb.log(t, "alpha@example.test"))
	return Delivery{}
}

// TestReminderArrivesAfterItsRequestAfterAnOutage: the mail server is
// away when alpha is asked to confirm; it is back while the request waits
// for its next attempt, and the reminder falls due then. The reminder
// used to go at once, and alpha read "Reminder: your answer is waiting"
// before the request; now it waits for the request, which arrives first.
func TestReminderArrivesAfterItsRequestAfterAnOutage(t *testing.T) {
	t.Parallel()
	nb, _, _ := setupOrder(t, func(nb *notifyBundle) { nb.smtp.Down() })
	nb.waitRetrying(t, jobs.ChannelEmail)
	nb.smtp.Up(t)
	nb.advance(20 * time.Minute)
	nb.sweepReminders(t, 1)
	got := nb.mailsTo(t, "alpha@example.test", 2)
	if len(got) != 2 || !strings.HasPrefix(got[0], "Withdraw?") || !strings.HasPrefix(got[1], "Reminder: your answer is waiting") {
		t.Fatalf("alpha's mails, in the order they arrived: %q; want the request, then its reminder", got)
	}
}

// TestPushReminderArrivesAfterItsRequest: the same on a device, whose push
// service answered 503 to the request's push: its reminder's push waits
// for it.
func TestPushReminderArrivesAfterItsRequest(t *testing.T) {
	t.Parallel()
	var phone *notifytest.Device
	nb, _, _ := setupOrder(t, func(nb *notifyBundle) {
		phone = nb.subscribe(t, "alpha@example.test", "phone")
		nb.push.Unavailable(1)
	})
	nb.waitRetrying(t, jobs.ChannelPush)
	nb.advance(20 * time.Minute)
	nb.sweepReminders(t, 1)
	var kinds []notify.Kind
	for end := time.Now().Add(15 * time.Second); len(kinds) < 2 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		_, payloads := pushesTo(t, nb.push.Pushes(), phone)
		kinds = kinds[:0]
		for _, p := range payloads {
			kinds = append(kinds, p.Kind)
		}
	}
	if len(kinds) != 2 || kinds[0] != notify.Kind(jobs.TopicRequest) || kinds[1] != notify.Kind(jobs.TopicReminder) {
		t.Fatalf("the phone's pushes, in the order they arrived: %q; want the request, then its reminder", kinds)
	}
}

// TestClosedArrivesAfterTheRequestItMadeStale: the deadline passes while
// the request waits for its retry: the room closes, and alpha is told.
// The "closed" waits for the request's turn, at which the request, no
// longer pending, is skipped with its reason in the log; then "closed"
// goes: alpha never gets a request for a room already closed, nor the
// news before the question.
func TestClosedArrivesAfterTheRequestItMadeStale(t *testing.T) {
	t.Parallel()
	nb, _, _ := setupOrder(t, func(nb *notifyBundle) { nb.smtp.Down() })
	nb.waitRetrying(t, jobs.ChannelEmail)
	nb.smtp.Up(t)
	nb.advance(41 * time.Minute)
	if n, err := nb.rooms.CloseDue(nb.ctx, 10); err != nil || n != 1 {
		t.Fatalf("the sweep after the deadline: %d due, %v", n, err)
	}
	got := nb.mailsTo(t, "alpha@example.test", 1)
	if len(got) != 1 || !strings.HasPrefix(got[0], "Closed") {
		t.Fatalf("alpha's mails: %q; want the closed notice only", got)
	}
	if req := nb.logLine(t, jobs.TopicRequest, jobs.ChannelEmail); req.Status != jobs.StatusSkipped ||
		req.Error != "the confirmation is no longer pending" {
		t.Fatalf("the request's line when the closed notice went: %+v; want it skipped first, with its reason", req)
	}
	nb.settle(t)
	if got := nb.mailsTo(t, "alpha@example.test", 1); len(got) != 1 {
		t.Fatalf("alpha's mails: %q", got)
	}
}

// TestLaterMailGoesWhenTheEarlierEnds: the wait ends with the earlier
// message. One refused for good (554) is not waited for again: the
// reminder goes after it. One whose job an operator cancelled (River UI)
// while its line still says retrying is not waited for either.
func TestLaterMailGoesWhenTheEarlierEnds(t *testing.T) {
	t.Parallel()
	t.Run("refused for good", func(t *testing.T) {
		t.Parallel()
		nb, _, _ := setupOrder(t, func(nb *notifyBundle) { nb.smtp.Down() })
		nb.waitRetrying(t, jobs.ChannelEmail)
		nb.smtp.RefuseForGood(1) // the next message offered: the request's, which goes first
		nb.smtp.Up(t)
		nb.advance(20 * time.Minute)
		nb.sweepReminders(t, 1)
		got := nb.mailsTo(t, "alpha@example.test", 1)
		if len(got) != 1 || !strings.HasPrefix(got[0], "Reminder: your answer is waiting") {
			t.Fatalf("alpha's mails: %q; want the reminder", got)
		}
		if req := nb.logLine(t, jobs.TopicRequest, jobs.ChannelEmail); req.Status != jobs.StatusFailed || !strings.Contains(req.Error, "554") {
			t.Fatalf("the request's line: %+v; want it refused for good", req)
		}
	})
	t.Run("job cancelled", func(t *testing.T) {
		t.Parallel()
		nb, _, _ := setupOrder(t, func(nb *notifyBundle) { nb.smtp.Down() })
		nb.waitRetrying(t, jobs.ChannelEmail)
		req := nb.logLine(t, jobs.TopicRequest, jobs.ChannelEmail)
		if _, err := nb.rc.JobCancel(nb.ctx, req.JobID); err != nil {
			t.Fatal(err)
		}
		nb.smtp.Up(t)
		nb.advance(20 * time.Minute)
		nb.sweepReminders(t, 1)
		got := nb.mailsTo(t, "alpha@example.test", 1)
		if len(got) != 1 || !strings.HasPrefix(got[0], "Reminder: your answer is waiting") {
			t.Fatalf("alpha's mails: %q; want the reminder", got)
		}
		if line := nb.logLine(t, jobs.TopicRequest, jobs.ChannelEmail); line.Status != jobs.StatusRetrying {
			t.Fatalf("the request's line: %+v; want it left retrying (its job was cancelled)", line)
		}
	})
}

// TestPersonReminderArrivesAfterTheirTurn: the same for a person answering
// in the browser (side b, no account; their log is the room's): the mail
// telling them it is their turn waits for its retry when their reminder
// falls due; the reminder waits for it.
func TestPersonReminderArrivesAfterTheirTurn(t *testing.T) {
	t.Parallel()
	nb := setupNotifyRetry(t, true, retryLater{})
	deadline := nb.rooms.now().Add(40 * time.Minute)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: "dave@stranger.test", Deadline: &deadline})
	if err != nil {
		t.Fatal(err)
	}
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin})
	if err != nil {
		t.Fatal(err)
	}
	room := turnRoom(t, nb, res.SeatToken)
	nb.settle(t)
	before := len(nb.mailsTo(t, "dave@stranger.test", 0))
	nb.smtp.Down()
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(9, "")}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got := nb.personDeliveries(t, room)["turn"]; len(got) == 1 && strings.HasPrefix(got[0], "retrying") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the turn's mail is not retrying: %v", nb.personDeliveries(t, room))
		}
	}
	nb.smtp.Up(t)
	nb.advance(20 * time.Minute)
	nb.sweepReminders(t, 1)
	got := nb.mailsTo(t, "dave@stranger.test", before+2)[before:]
	if len(got) != 2 || strings.HasPrefix(got[0], "Reminder") || !strings.HasPrefix(got[1], "Reminder") {
		t.Fatalf("Dave's mails, in the order they arrived: %q; want his turn, then its reminder", got)
	}
}
