package app

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestNotificationIssuesItsOneTapInItsRead: a request's notification
// stores its one-tap token with the statement that reads the notice, and
// its link works; once the confirmation is no longer pending, a reminder's
// stores none; other topics read as they did, without a token.
func TestNotificationIssuesItsOneTapInItsRead(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	pool, sent := rb.tracedPool(t)
	svc, err := NewNotifications(NotificationsConfig{Pool: pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	q := rb.askB(t, "", 10, "")
	v, cv := q.v, q.cv
	tokens := func() (n int) {
		t.Helper()
		if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM onetap_tokens WHERE room_id = $1`, v.RoomID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	request := jobs.Notice{Topic: jobs.TopicRequest, RoomID: v.RoomID, Side: negotiation.SideB, UserID: rb.b.OwnerUserID, ConfirmationID: cv.ID}
	sent.take()
	n, err := svc.Notification(rb.ctx, jobs.Delivery{Notice: request, Channel: jobs.ChannelEmail})
	if err != nil {
		t.Fatal(err)
	}
	m := oneTapLink.FindStringSubmatch(n.OneTapURL)
	if m == nil {
		t.Fatalf("the request's link: %q", n.OneTapURL)
	}
	if ot := onetapStatements(sentOnly(sent.take())); len(ot) != 1 || ot[0] != notificationOneTapSQL {
		t.Errorf("the notification's statements on onetap_tokens: %q, want notificationOneTapSQL alone", ot)
	}
	if got := tokens(); got != 1 {
		t.Fatalf("%d tokens stored, want 1", got)
	}
	d, err := rb.rooms.DecideOneTap(rb.ctx, m[1], cv.SubjectHash, true)
	if err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("the link: %v %+v", err, d)
	}

	reminder := request
	reminder.Topic = jobs.TopicReminder
	_, err = svc.Notification(rb.ctx, jobs.Delivery{Notice: reminder, Channel: jobs.ChannelEmail})
	var skip *jobs.SkipError
	if !errors.As(err, &skip) || skip.Reason != "the confirmation is no longer pending" {
		t.Fatalf("a reminder of a settled confirmation: %v", err)
	}
	if got := tokens(); got != 1 {
		t.Errorf("%d tokens stored, want still 1", got)
	}
	sent.take()
	noDeal := jobs.Notice{Topic: jobs.TopicNoDeal, RoomID: v.RoomID, Side: negotiation.SideB, UserID: rb.b.OwnerUserID}
	if n, err := svc.Notification(rb.ctx, jobs.Delivery{Notice: noDeal, Channel: jobs.ChannelEmail}); err != nil || n.OneTapURL != "" {
		t.Fatalf("a notice: %v, %+v", err, n)
	}
	sql, _ := sent.take()
	if !slices.Contains(sql, notificationSQL) || len(onetapStatements(sql)) != 0 {
		t.Errorf("a notice's statements: %q", sql)
	}
	rb.checkClean(t)
}
