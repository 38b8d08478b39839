package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
)

// oldJobKinds are the job kinds the sweep replaced: nothing inserts them.
var oldJobKinds = []string{jobs.CloseDueArgs{}.Kind(), jobs.RemindArgs{}.Kind()}

func (rb *roomsBundle) oldJobs(t *testing.T) int {
	t.Helper()
	var n int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE kind = ANY($1)`, oldJobKinds).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (rb *roomsBundle) sweepRooms(t *testing.T, want int) {
	t.Helper()
	if n, err := rb.rooms.CloseDue(rb.ctx, jobs.SweepBatch); err != nil || n != want {
		t.Fatalf("the sweep found %d rooms due (%v), want %d", n, err, want)
	}
}

// TestSweepClosesWhatIsDue: an invitation nobody answered expires at 72
// hours, a joined room lapses at its deadline and not at the invitation's
// end; a sweep before the moment, or again after it, changes nothing; no
// job is scheduled for any of it.
func TestSweepClosesWhatIsDue(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Unix(0, rb.clock.Load()).Add(96 * time.Hour)
	ta, _ := rb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	rb.sweepRooms(t, 0)
	rb.advance(72*time.Hour - time.Second)
	rb.sweepRooms(t, 0)
	rb.advance(time.Second)
	rb.sweepRooms(t, 1) // the invitation, not the joined room
	rb.sweepRooms(t, 0) // twice: nothing more
	v, _ := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
	if v.State != "closed" || v.ClosedReason != "expired" {
		t.Fatalf("after 72 h: %s %s", v.State, v.ClosedReason)
	}
	if _, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema}); err == nil || err.Error() != "invite: the invitation has expired" {
		t.Fatalf("join an expired invitation (refused with the reason, seed 001): %v", err)
	}
	if v, _ = rb.rooms.Read(rb.ctx, rb.a, ta); v.State != "awaiting" {
		t.Fatalf("the joined room at the invitation's end: %s", v.State)
	}
	rb.advance(24 * time.Hour)
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err == nil || err.Error() != "the deadline has passed" {
		t.Fatalf("a move after the deadline: %v", err)
	}
	rb.sweepRooms(t, 1)
	rb.sweepRooms(t, 0)
	if v, _ = rb.rooms.Read(rb.ctx, rb.a, ta); v.State != "closed" || v.ClosedReason != "lapsed" {
		t.Fatalf("after the deadline: %s %s", v.State, v.ClosedReason)
	}
	if n := rb.oldJobs(t); n != 0 {
		t.Fatalf("%d close or reminder jobs inserted, want none", n)
	}
	rb.checkClean(t)
}

// TestSweepLateAndInBatches: a sweep that comes long after many rooms fell
// due closes them all, a batch at a time, the earliest due first.
func TestSweepLateAndInBatches(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 7
	start := time.Unix(0, rb.clock.Load())
	for i := range rooms {
		deadline := start.Add(time.Duration(rooms-i) * time.Hour) // the last opened falls due first
		rb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	}
	rb.advance(30 * 24 * time.Hour)
	var order []int64
	for _, want := range []int{3, 3, 1, 0} {
		ids, err := selectDueRooms(rb.ctx, rb.pool, rb.rooms.dbMoment(), 3)
		if err != nil {
			t.Fatal(err)
		}
		order = append(order, ids...)
		if n, err := rb.rooms.CloseDue(rb.ctx, 3); err != nil || n != want {
			t.Fatalf("a step of 3: %d due (%v), want %d", n, err, want)
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i] > order[i-1] {
			t.Fatalf("closed in the order %v, want the earliest deadline (the newest room) first", order)
		}
	}
	rb.checkClean(t)
}

// TestSweepsOverlap: two sweeps at once (a slow one and the next) close
// each due room once.
func TestSweepsOverlap(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	const rooms = 10
	for range rooms {
		deadline := time.Unix(0, rb.clock.Load()).Add(time.Hour)
		rb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	}
	rb.advance(time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			_, err := rb.rooms.CloseDue(rb.ctx, jobs.SweepBatch)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var closes, lapsed int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT (SELECT count(*) FROM room_events WHERE kind = 'close'),
		(SELECT count(*) FROM rooms WHERE closed_reason = 'lapsed')`).Scan(&closes, &lapsed); err != nil {
		t.Fatal(err)
	}
	if closes != rooms || lapsed != rooms {
		t.Fatalf("%d close events, %d rooms lapsed; want %d and %d", closes, lapsed, rooms, rooms)
	}
	rb.sweepRooms(t, 0)
	rb.checkClean(t)
}

// remindAt is a confirmation's next reminder as stored ("" for none,
// "-infinity" for never planned).
func (rb *roomsBundle) remindAt(t *testing.T, id string) string {
	t.Helper()
	var at *string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT CASE WHEN remind_at = '-infinity' THEN '-infinity'
		ELSE to_char(remind_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') END FROM confirmations WHERE id = $1`,
		id).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if at == nil {
		return ""
	}
	return *at
}

func utcSecond(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05") }

func (nb *notifyBundle) sweepReminders(t *testing.T, want int) {
	t.Helper()
	if n, err := nb.svc.RemindDue(nb.ctx, jobs.SweepBatch); err != nil || n != want {
		t.Fatalf("the sweep found %d reminders due (%v), want %d", n, err, want)
	}
}

// TestShortDeadlineIsReminded: a confirmation pending in a room whose
// deadline is 40 minutes away is reminded of once, 20 minutes before the
// deadline (negotiation.Reminders), end to end: the sweep at the rooms'
// clock, the reminder's job, the mail.
func TestShortDeadlineIsReminded(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	deadline := nb.rooms.now().Add(40 * time.Minute)
	ta, tb := nb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "reject", "")
	if err != nil {
		t.Fatal(err)
	}
	if req := nb.mailTo(t, "beta@example.test", 1); !strings.HasPrefix(req.Subject, "Reject the terms?") {
		t.Errorf("request %q", req.Subject)
	}
	if got, want := nb.remindAt(t, cv.ID), utcSecond(deadline.Add(-20*time.Minute)); got != want {
		t.Fatalf("the reminder planned at %q, want %q (half the 40 minutes left)", got, want)
	}
	nb.sweepReminders(t, 0)
	nb.advance(20*time.Minute - time.Second)
	nb.sweepReminders(t, 0)
	nb.advance(time.Second)
	nb.sweepReminders(t, 1)
	nb.sweepReminders(t, 0) // twice: nothing more
	rem := nb.mailTo(t, "beta@example.test", 2)
	if !strings.HasPrefix(rem.Subject, "Reminder: your answer is waiting") || !oneTapLink.MatchString(rem.Text) ||
		!strings.Contains(rem.Text, "in about 20 minutes") {
		t.Errorf("reminder %q:\n%s", rem.Subject, rem.Text)
	}
	if got := nb.remindAt(t, cv.ID); got != "" {
		t.Errorf("after the short deadline's one reminder: next %q, want none", got)
	}
	// The deadline passes: the room lapses, nobody is reminded again.
	nb.advance(20 * time.Minute)
	nb.sweepRooms(t, 1)
	nb.sweepReminders(t, 0)
	nb.mailTo(t, "beta@example.test", 3) // closed
	nb.settle(t)
	var reminders int
	for _, d := range nb.log(t, "beta@example.test") {
		if d.Topic == jobs.TopicReminder {
			reminders++
		}
	}
	if reminders != 1 {
		t.Errorf("%d reminders in b's log, want 1", reminders)
	}
	if n := nb.oldJobs(t); n != 0 {
		t.Fatalf("%d close or reminder jobs inserted, want none", n)
	}
}

// TestRemindersAtTheirMoments: 24 h and 1 h before the deadline, each
// once; a sweep that comes after both sends the latest only; a
// confirmation never planned (written by the older code, or pending when
// migration 00013 ran) is planned at its next moment, with nothing sent
// for the moments past.
func TestRemindersAtTheirMoments(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	deadline := nb.rooms.now().Add(25 * time.Hour)
	rooms := map[string]*ConfirmationView{}
	roomOf := map[string]int64{}
	ask := func() string {
		ta, tb := nb.openJoined(t, OpenInput{Deadline: &deadline}, "")
		if _, err := nb.rooms.Propose(nb.ctx, nb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
			t.Fatal(err)
		}
		cv, v, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "reject", "")
		if err != nil {
			t.Fatal(err)
		}
		rooms[cv.ID], roomOf[cv.ID] = cv, v.RoomID
		return cv.ID
	}
	first, second, legacy := ask(), ask(), ask()
	if _, err := nb.pool.Exec(nb.ctx, `UPDATE confirmations SET remind_at = DEFAULT WHERE id = $1`, legacy); err != nil {
		t.Fatal(err)
	}
	if got := nb.remindAt(t, legacy); got != "-infinity" {
		t.Fatalf("a row written without remind_at: %q, want -infinity", got)
	}
	for _, id := range []string{first, second} {
		if got, want := nb.remindAt(t, id), utcSecond(deadline.Add(-24*time.Hour)); got != want {
			t.Fatalf("first reminder at %q, want %q", got, want)
		}
	}
	nb.sweepReminders(t, 1) // the legacy one, planned
	if got, want := nb.remindAt(t, legacy), utcSecond(deadline.Add(-24*time.Hour)); got != want {
		t.Fatalf("the legacy confirmation planned at %q, want %q", got, want)
	}
	nb.advance(time.Hour)
	nb.sweepReminders(t, 3) // the 24 h reminders
	nb.sweepReminders(t, 0)
	for _, id := range []string{first, second, legacy} {
		if got, want := nb.remindAt(t, id), utcSecond(deadline.Add(-time.Hour)); got != want {
			t.Fatalf("after the 24 h reminder: next %q, want %q", got, want)
		}
	}
	// second is answered before its 1 h reminder: the sweep skips it.
	if _, err := nb.rooms.DecideAsOwner(nb.ctx, nb.b.OwnerUserID, roomOf[second], second, rooms[second].SubjectHash, false); err != nil {
		t.Fatal(err)
	}
	nb.advance(23*time.Hour + 30*time.Minute) // 30 minutes before the deadline: the 1 h one, late
	nb.settle(t)
	before := len(nb.smtp.Mails())
	nb.sweepReminders(t, 2)
	nb.sweepReminders(t, 0)
	for _, id := range []string{first, legacy} {
		if got := nb.remindAt(t, id); got != "" {
			t.Fatalf("after the 1 h reminder: next %q, want none", got)
		}
	}
	nb.settle(t)
	if got := len(nb.smtp.Mails()) - before; got != 2 {
		t.Errorf("%d mails from the late sweep, want 2 (one 1 h reminder each)", got)
	}
	if n := nb.oldJobs(t); n != 0 {
		t.Fatalf("%d close or reminder jobs inserted, want none", n)
	}
}

// TestSweepLapsesADraftAtItsDeadline: an invitation nobody answered whose
// deadline comes before the invitation's end lapses at the deadline, not
// at the invitation's end (rooms_due's least of the two).
func TestSweepLapsesADraftAtItsDeadline(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	deadline := time.Unix(0, rb.clock.Load()).Add(time.Hour)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Deadline: &deadline})
	if err != nil {
		t.Fatal(err)
	}
	rb.advance(time.Hour - time.Second)
	rb.sweepRooms(t, 0)
	rb.advance(time.Second)
	rb.sweepRooms(t, 1)
	rb.sweepRooms(t, 0)
	if v, _ := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken); v.State != "closed" || v.ClosedReason != "lapsed" {
		t.Fatalf("a draft at its deadline: %s %s, want closed lapsed", v.State, v.ClosedReason)
	}
	rb.checkClean(t)
}

// TestSweepPastARoomThatFails: a room that fails to close (its snapshot
// does not restore) is reported, naming it, and does not hold back the
// rooms due with it; it stays due, for the next sweep to report again.
func TestSweepPastARoomThatFails(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	deadline := time.Unix(0, rb.clock.Load()).Add(time.Hour)
	var tokens []string
	for range 3 {
		ta, _ := rb.openJoined(t, OpenInput{Deadline: &deadline}, "")
		tokens = append(tokens, ta)
	}
	broken, err := rb.rooms.Read(rb.ctx, rb.a, tokens[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE rooms SET snapshot = '{' WHERE id = $1`, broken.RoomID); err != nil {
		t.Fatal(err)
	}
	rb.advance(time.Hour)
	for _, want := range []int{3, 1} {
		n, err := rb.rooms.CloseDue(rb.ctx, jobs.SweepBatch)
		if n != want || err == nil || !strings.Contains(err.Error(), fmt.Sprintf("room %d", broken.RoomID)) {
			t.Fatalf("a sweep past a room that fails: %d due (%v), want %d and the room's error", n, err, want)
		}
	}
	for _, tok := range []string{tokens[0], tokens[2]} {
		if v, _ := rb.rooms.Read(rb.ctx, rb.a, tok); v.State != "closed" || v.ClosedReason != "lapsed" {
			t.Fatalf("a room due with the one that fails: %s %s", v.State, v.ClosedReason)
		}
	}
}

// TestSweepLeavesAVanishedRoom: a room the sweep found due but that is
// gone when its close begins (erased with its account meanwhile) is no
// error: the sweep's other rooms and the next sweeps go on without it.
func TestSweepLeavesAVanishedRoom(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	if err := rb.rooms.closeIfDue(rb.ctx, 1<<40); err != nil {
		t.Fatalf("a room gone before its close: %v", err)
	}
}

// TestReminderSweepAndLocks: a confirmation a move holds (locked for
// update, to settle it) is left to the next sweep, which the sweep does
// not wait for; one whose one-tap token is being issued (a row that
// refers to it, holding a key-share lock) is reminded as any other.
func TestReminderSweepAndLocks(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	deadline := nb.rooms.now().Add(40 * time.Minute)
	ta, tb := nb.openJoined(t, OpenInput{Deadline: &deadline}, "")
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	cv, v, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "reject", "")
	if err != nil {
		t.Fatal(err)
	}
	nb.advance(20 * time.Minute)
	ctx, cancel := context.WithTimeout(nb.ctx, 20*time.Second) // a sweep that waits fails, rather than hangs
	defer cancel()
	hold := func(sql string, args ...any) pgx.Tx {
		t.Helper()
		tx, err := nb.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback(context.Background()) }) // before the bundle's, which it would hold up
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	move := hold(`SELECT FROM confirmations WHERE room_id = $1 AND id = $2 FOR UPDATE`, v.RoomID, cv.ID)
	if n, err := nb.svc.RemindDue(ctx, jobs.SweepBatch); n != 0 || err != nil {
		t.Fatalf("a sweep beside a move that holds the confirmation: %d due (%v), want it left", n, err)
	}
	_ = move.Rollback(ctx)
	hold(`INSERT INTO onetap_tokens (room_id, token_hash, confirmation_id, channel, created_at)
		VALUES ($1, $2, $3, 'email', now())`, v.RoomID, bytes.Repeat([]byte{7}, 32), cv.ID)
	if n, err := nb.svc.RemindDue(ctx, jobs.SweepBatch); n != 1 || err != nil {
		t.Fatalf("a sweep beside a one-tap token being issued: %d due (%v), want the reminder", n, err)
	}
}
