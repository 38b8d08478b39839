package app

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// personRemindAt is the next reminder planned for the room's person
// ("" for none).
func (nb *notifyBundle) personRemindAt(t *testing.T, roomID int64) string {
	t.Helper()
	var at *string
	if err := nb.pool.QueryRow(nb.ctx, `SELECT CASE WHEN person_remind_at = '-infinity' THEN '-infinity'
		ELSE to_char(person_remind_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') END FROM rooms WHERE id = $1`,
		roomID).Scan(&at); err != nil {
		t.Fatal(err)
	}
	if at == nil {
		return ""
	}
	return *at
}

// TestPersonIsRemindedOfTheirTurn: a person answering in the browser whose
// turn starts 40 minutes before the deadline is reminded once, 20 minutes
// before it (negotiation.Reminders, as a confirmation would be), by the
// sweep, in the language and zone of their page, with their personal link;
// a sweep run again sends nothing more, and their answer ends the
// reminders. A person who answered before the moment, and one who left no
// address, get no reminder.
func TestPersonIsRemindedOfTheirTurn(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	deadline := nb.rooms.now().Add(40 * time.Minute)
	seat := func(email string, ans PersonAnswer) (string, int64) {
		open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: email, Deadline: &deadline})
		if err != nil {
			t.Fatal(err)
		}
		ans.Verdict = VerdictJoin
		res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, ans)
		if err != nil {
			t.Fatal(err)
		}
		// The inviter's agent offers: the person's turn, 40 minutes
		// before the deadline.
		if _, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(9, "")}); err != nil {
			t.Fatal(err)
		}
		return res.SeatToken, turnRoom(t, nb, res.SeatToken)
	}
	dave, daveRoom := seat("dave@stranger.test", PersonAnswer{Lang: "fr", Zone: "Europe/Paris"})
	erin, erinRoom := seat("erin@stranger.test", PersonAnswer{})
	_, nobodyRoom := seat("", PersonAnswer{})

	if got, want := nb.personRemindAt(t, daveRoom), utcSecond(deadline.Add(-20*time.Minute)); got != want {
		t.Fatalf("Dave's reminder planned at %q, want %q (half the 40 minutes left)", got, want)
	}
	if got := nb.personRemindAt(t, nobodyRoom); got != "" {
		t.Errorf("a seat with no address: a reminder planned at %q", got)
	}
	nb.settle(t) // the invitations (skipped if answered first), the turns

	// Erin answers 30 minutes before the deadline: her turn ends, and
	// its reminder with it.
	nb.advance(10 * time.Minute)
	if _, err := nb.rooms.AnswerAsPerson(nb.ctx, erin, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	if got := nb.personRemindAt(t, erinRoom); got != "" {
		t.Errorf("after Erin's answer: a reminder planned at %q", got)
	}
	nb.sweepReminders(t, 0)
	nb.advance(10*time.Minute - time.Second)
	nb.sweepReminders(t, 0)
	nb.advance(time.Second)
	nb.sweepReminders(t, 1)
	nb.sweepReminders(t, 0) // twice: nothing more
	rem := nb.mailWith(t, "dave@stranger.test", "Rappel")
	if !strings.HasPrefix(rem.Subject, "Rappel : c'est à vous de répondre") ||
		!strings.Contains(rem.Text, "C'est toujours à vous de répondre dans la négociation avec ALPHA :") ||
		!strings.Contains(rem.Text, "(Europe/Paris) (dans environ 20 minutes)") {
		t.Errorf("Dave's reminder, in French and Paris time:\n%s\n%s", rem.Subject, rem.Text)
	}
	if m := personLink.FindStringSubmatch(rem.Text); m == nil || m[1] != dave {
		t.Errorf("Dave's reminder should carry his personal link %s:\n%s", dave, rem.Text)
	}
	if rem.Header.Get("List-Unsubscribe") == "" || strings.Contains(rem.Text, "/c/") {
		t.Errorf("a person's reminder: List-Unsubscribe, no one-tap link:\n%v\n%s", rem.Header, rem.Text)
	}
	if got := nb.personRemindAt(t, daveRoom); got != "" {
		t.Errorf("after the short deadline's one reminder: next %q, want none", got)
	}

	// Dave answers; the deadline passes: the rooms lapse, nobody is
	// reminded again.
	if _, err := nb.rooms.AnswerAsPerson(nb.ctx, dave, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "")}); err != nil {
		t.Fatal(err)
	}
	nb.advance(20 * time.Minute)
	nb.sweepRooms(t, 3)
	nb.sweepReminders(t, 0)
	nb.settle(t)
	for room, want := range map[int64]int{daveRoom: 1, erinRoom: 0, nobodyRoom: 0} {
		if got := len(nb.personDeliveries(t, room)["reminder"]); got != want {
			t.Errorf("room %d: %d reminders in the person's log, want %d", room, got, want)
		}
	}
	if got := nb.personDeliveries(t, daveRoom)["reminder"]; len(got) == 1 && got[0] != "sent dave@stranger.test" {
		t.Errorf("Dave's reminder: %v", got)
	}
	var kinds []string
	if err := nb.pool.QueryRow(nb.ctx, `SELECT coalesce(array_agg(kind), '{}') FROM river_job WHERE args->>'topic' = $1`,
		string(jobs.TopicReminder)).Scan(&kinds); err != nil || len(kinds) != 1 {
		t.Fatalf("reminder jobs of kinds %v (%v), want 1", kinds, err)
	}
	// While an upgrade runs, a worker of a build before migration 00031
	// works the same queue: it skipped a person's reminder of the kind
	// notify_email ("a person is not told of reminder"), so it must be
	// of a kind that worker does not know (it then fails there, and is
	// retried until a newer worker takes it).
	before00031 := []string{"notify_email", "notify_push", "notify_invite", "notify_remind", "member_invite",
		"room_close_due", "sweep_due", "purge_expired", "webhook", "webhook_disabled"}
	if slices.Contains(before00031, kinds[0]) {
		t.Errorf("a person's reminder is a %s job, which a worker before migration 00031 skips", kinds[0])
	}
}

// TestPersonTurnFoundByTheMigration: a turn that was a person's when
// migration 00031 ran ('-infinity': never planned) is planned by the
// first sweep at its next moment, with nothing sent for the moments past,
// and then reminded of at that moment (24 h before a deadline a day and an
// hour away).
func TestPersonTurnFoundByTheMigration(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	deadline := nb.rooms.now().Add(25 * time.Hour)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Deadline: &deadline})
	if err != nil {
		t.Fatal(err)
	}
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "fay@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(9, "")}); err != nil {
		t.Fatal(err)
	}
	room := turnRoom(t, nb, res.SeatToken)
	// The room as it was before 00031, then 00031's own backfill.
	if _, err := nb.pool.Exec(nb.ctx, `UPDATE rooms SET person_turn_at = NULL, person_remind_at = NULL WHERE id = $1`, room); err != nil {
		t.Fatal(err)
	}
	up, err := os.ReadFile("../migrations/00031_person_reminders.sql")
	if err != nil {
		t.Fatal(err)
	}
	backfill := regexp.MustCompile(`(?s)\nUPDATE rooms r .*?;`).Find(up)
	if backfill == nil {
		t.Fatal("00031's backfill not found")
	}
	if _, err := nb.pool.Exec(nb.ctx, string(backfill)); err != nil {
		t.Fatal(err)
	}
	if got := nb.personRemindAt(t, room); got != "-infinity" {
		t.Fatalf("after 00031's backfill: %q, want -infinity", got)
	}
	nb.sweepReminders(t, 1) // planned, nothing sent
	if got, want := nb.personRemindAt(t, room), utcSecond(deadline.Add(-24*time.Hour)); got != want {
		t.Fatalf("the turn planned at %q, want %q", got, want)
	}
	nb.settle(t)
	if got := len(nb.personDeliveries(t, room)["reminder"]); got != 0 {
		t.Fatalf("%d reminders sent when planning, want none", got)
	}
	nb.advance(time.Hour)
	nb.sweepReminders(t, 1)
	if rem := nb.mailWith(t, "fay@stranger.test", "Reminder: it is your turn to answer"); !strings.Contains(rem.Text, res.SeatToken) {
		t.Errorf("the reminder should carry the personal link:\n%s", rem.Text)
	}
	if got, want := nb.personRemindAt(t, room), utcSecond(deadline.Add(-time.Hour)); got != want {
		t.Errorf("after the 24 h reminder: next %q, want %q", got, want)
	}
}
