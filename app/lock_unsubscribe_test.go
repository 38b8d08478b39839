package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/negotiation"
)

// TestPersonUnsubscribesWhileRetentionForgets: a person's List-Unsubscribe
// link forgets their address in a room that ended while the retention's
// walk forgets the addresses of the rooms that ended, that room among
// them. The unsubscribe locked the seat, then the room; the walk changed
// the room, then locked the seat: PostgreSQL failed one with a deadlock
// (the person saw an error page, their address kept). A test transaction
// holds the walk on a second room's row, after it changed the first
// room's, and the unsubscribe comes in that window whatever the timing.
// Now the unsubscribe takes the addresses' locks first, as an erasure
// does, and waits for the walk before any row.
func TestPersonUnsubscribesWhileRetentionForgets(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	notify, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	var rooms []int64
	for _, email := range []string{"ann@example.test", "bob@example.test"} {
		o, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, ""), InviteEmail: email})
		if err != nil {
			t.Fatal(err)
		}
		res, err := rb.rooms.AnswerInvitation(rb.ctx, o.InviteCode, PersonAnswer{Verdict: negotiation.VerdictJoin})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rb.rooms.AnswerAsPerson(rb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictReject}); err != nil {
			t.Fatal(err)
		}
		rooms = append(rooms, o.View.RoomID)
	}
	first, second := rooms[0], rooms[1]
	hold := pgtest.HoldLock(t, rb.pool, `SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, second)
	ret := NewRetention(rb.pool, RetentionPeriods{OneTap: time.Hour})
	purged := make(chan error, 1)
	go func() {
		_, err := ret.PurgeOld(context.Background(), time.Now().Add(24*time.Hour), time.Now().Add(time.Minute))
		purged <- err
	}()
	hold.WaitFor(1, "the retention's walk does not wait for the held room")
	unsubscribed := make(chan error, 1)
	go func() {
		_, err := notify.UnsubscribePerson(context.Background(),
			strings.TrimPrefix(notify.personUnsubscribeURL(first), notify.baseURL+"/unsubscribe/"))
		unsubscribed <- err
	}()
	hold.WaitForOr(2, func() bool { return len(unsubscribed) > 0 }, "the unsubscribe neither done nor waiting")
	hold.Release()
	for what, ch := range map[string]chan error{"the retention": purged, "the unsubscribe": unsubscribed} {
		if err := <-ch; err != nil {
			t.Errorf("%s: %v (%s)", what, err, lockTrouble(err))
		}
	}
	var left int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT (SELECT count(*) FROM parties WHERE person_email IS NOT NULL)
		+ (SELECT count(*) FROM rooms WHERE invite_email IS NOT NULL)`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d addresses left in the rooms that ended (%v)", left, err)
	}
}
