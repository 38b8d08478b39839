package app

import (
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
	"github.com/taasky/taasky/receipt"
)

// personLink is the personal link a mail to a person carries.
var personLink = regexp.MustCompile(`http://127\.0\.0\.1:8080/p/(ps_[A-Za-z0-9_-]+)`)

// personDeliveries is the room's log of the mails to its person:
// topic → status.
func (nb *notifyBundle) personDeliveries(t *testing.T, roomID int64) map[string][]string {
	t.Helper()
	rows, err := nb.pool.Query(nb.ctx, `SELECT topic, status, recipient FROM person_deliveries WHERE room_id = $1 ORDER BY job_id`, roomID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var topic, status, to string
		if err := rows.Scan(&topic, &status, &to); err != nil {
			t.Fatal(err)
		}
		out[topic] = append(out[topic], status+" "+to)
	}
	return out
}

// mailWith waits for a message to addr whose subject starts with subject
// (the inviter's request may be skipped, answered before its job ran).
func (nb *notifyBundle) mailWith(t *testing.T, addr, subject string) *notify.Parsed {
	t.Helper()
	for n := 1; ; n++ {
		if p := nb.mailTo(t, addr, n); strings.HasPrefix(p.Subject, subject) {
			return p
		}
	}
}

// TestPersonIsToldWhatHappens is the reviewer's journey: an agent opens
// with invite_email dave@stranger.test; Dave counters from the invitation
// page (giving no address: the invitation's is his); the inviter's agent
// approves and the inviter confirms: Dave is told it is his turn, in the
// language and zone of the page he answered on, with his personal link;
// he approves on his page: the room is agreed, and Dave gets the agreed
// mail with the calendar entry and the signed receipt, as the inviter
// does. Each mail is logged in the room's log of his deliveries.
func TestPersonIsToldWhatHappens(t *testing.T) {
	nb := setupNotify(t)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), Title: "Coffee",
		InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	invite := nb.mailTo(t, "dave@stranger.test", 1)
	if !strings.Contains(invite.Text, open.InviteURL) {
		t.Fatalf("the invitation:\n%s", invite.Text)
	}
	inv, err := nb.rooms.InvitationByCode(nb.ctx, open.InviteCode, nil)
	if err != nil || !inv.Emailed {
		t.Fatalf("the invitation page should know it was emailed: %v %+v", err, inv)
	}
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter,
		Terms: meeting(11, "15"), Lang: "fr", Zone: "Europe/Paris"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Read(nb.ctx, nb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.a, open.RoomToken, cv)

	turn := nb.mailTo(t, "dave@stranger.test", 2)
	if !strings.HasPrefix(turn.Subject, "À vous de répondre") || !strings.Contains(turn.Text, "ALPHA a approuvé vos conditions") {
		t.Errorf("the your-turn mail, in French:\n%s\n%s", turn.Subject, turn.Text)
	}
	if !strings.Contains(turn.Text, "13:00") || !strings.Contains(turn.Text, "UTC+02:00") {
		t.Errorf("the your-turn mail should write 11:00Z in Paris time:\n%s", turn.Text)
	}
	m := personLink.FindStringSubmatch(turn.Text)
	if m == nil || m[1] != res.SeatToken {
		t.Fatalf("the your-turn mail should carry Dave's personal link %s:\n%s", res.SeatToken, turn.Text)
	}
	if turn.Header.Get("List-Unsubscribe") == "" || strings.Contains(turn.Text, "/settings") || strings.Contains(turn.Text, "/c/") {
		t.Errorf("a person's mail: List-Unsubscribe, no settings, no one-tap link:\n%v\n%s", turn.Header, turn.Text)
	}

	if _, err := nb.rooms.AnswerAsPerson(nb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	agreed := nb.mailTo(t, "dave@stranger.test", 3)
	inviter := nb.mailWith(t, "alpha@example.test", "Agreed")
	if agreed.Subject != "Accord conclu — Coffee" {
		t.Errorf("the agreed mail: %s", agreed.Subject)
	}
	names := func(p *notify.Parsed) []string {
		var out []string
		for _, a := range p.Attachments {
			out = append(out, a.Name)
		}
		return out
	}
	if got, want := strings.Join(names(agreed), ","), strings.Join(names(inviter), ","); got != want || got != "invite.ics,taasky-receipt-room-"+itoa64(v.RoomID)+".jws" {
		t.Fatalf("Dave's attachments %q, the inviter's %q", got, want)
	}
	r, err := receipt.Verify(string(agreed.Attachments[1].Data), "http://127.0.0.1:8080", testReceiptKeys(t).JWKS())
	if err != nil || r.Room.ID != v.RoomID || r.SubjectHash != string(hash) {
		t.Fatalf("Dave's receipt: %v %+v", err, r)
	}
	if ics := string(agreed.Attachments[0].Data); !strings.Contains(ics, "DTSTART:20261014T110000Z") || strings.Contains(strings.ReplaceAll(ics, "\r\n ", ""), res.SeatToken) {
		t.Errorf("Dave's calendar:\n%s", agreed.Attachments[0].Data)
	}
	if !strings.Contains(agreed.Text, "http://127.0.0.1:8080/verify") || !strings.Contains(agreed.Text, res.SeatToken) {
		t.Errorf("the agreed mail should link Dave's page and /verify:\n%s", agreed.Text)
	}
	nb.settle(t)
	log := nb.personDeliveries(t, v.RoomID)
	if len(log) != 2 || len(log["turn"]) != 1 || log["turn"][0] != "sent dave@stranger.test" || log["agreed"][0] != "sent dave@stranger.test" {
		t.Errorf("Dave's deliveries: %v", log)
	}
	var toDave int
	for _, m := range nb.smtp.Mails() {
		if m.To[0] == "dave@stranger.test" {
			toDave++
		}
	}
	if toDave != 3 { // the invitation, his turn, agreed
		t.Errorf("%d mails to Dave, want 3", toDave)
	}
}

// TestPersonJoinsFirstThenHearsTurnAndClose: a person who joins before
// any terms were offered, giving their own address, is told at that
// address (not the invitation's) when the inviter's agent offers, and when
// the room closes; a List-Unsubscribe link stops the rest.
func TestPersonJoinsFirstThenHearsTurnAndClose(t *testing.T) {
	nb := setupNotify(t)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin, Email: "Dave@Home.test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(9, "")}); err != nil {
		t.Fatal(err)
	}
	turn := nb.mailTo(t, "dave@home.test", 1)
	if turn.Subject != "Your turn — negotiation with ALPHA" || !strings.Contains(turn.Text, "ALPHA proposed terms.") || !strings.Contains(turn.Text, res.SeatToken) ||
		!strings.Contains(turn.Text, "09:00") {
		t.Errorf("the your-turn mail (English, UTC: the page told no zone):\n%s\n%s", turn.Subject, turn.Text)
	}
	// Dave answers with the inviter's schema: its labels are the inviter's words.
	if !strings.Contains(turn.Text, "Meeting time (their field): ") {
		t.Errorf("the your-turn mail does not mark the inviter's label as theirs:\n%s", turn.Text)
	}
	// Dave counters; the inviter's agent counters back: his turn again, a
	// second mail.
	if _, err := nb.rooms.AnswerAsPerson(nb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "counter", Subject: meeting(12, "")}); err != nil {
		t.Fatal(err)
	}
	again := nb.mailTo(t, "dave@home.test", 2)
	if !strings.Contains(again.Text, "ALPHA proposed other terms.") {
		t.Errorf("the second your-turn mail:\n%s", again.Text)
	}
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.a, open.RoomToken, cv)
	closed := nb.mailTo(t, "dave@home.test", 3)
	if !strings.HasPrefix(closed.Subject, "Closed") || !strings.Contains(closed.Text, res.SeatToken) {
		t.Errorf("the closed mail:\n%s\n%s", closed.Subject, closed.Text)
	}
	nb.settle(t)
	for _, m := range nb.smtp.Mails() {
		if m.To[0] == "dave@stranger.test" && !strings.Contains(string(m.Data), "/i/") {
			t.Errorf("a notice went to the invitation's address, not the one Dave gave")
		}
	}

	// The List-Unsubscribe link forgets the address: nothing more is sent.
	unsub := closed.Header.Get("List-Unsubscribe")
	token := unsub[strings.LastIndex(unsub, "/")+1 : len(unsub)-1]
	if !nb.svc.PersonUnsubscribeToken(token) || nb.svc.UnsubscribeTokenValid(token) {
		t.Fatalf("a person's unsubscribe token %q", token)
	}
	if email, err := nb.svc.UnsubscribePerson(nb.ctx, token); err != nil || email != "dave@home.test" {
		t.Fatalf("unsubscribe: %q %v", email, err)
	}
	var left *string
	if err := nb.pool.QueryRow(nb.ctx, `SELECT person_email FROM parties WHERE side = 'b' AND token_hash = $1`, secretHash(res.SeatToken)).Scan(&left); err != nil || left != nil {
		t.Fatalf("the address should be forgotten: %v %v", left, err)
	}
	// Forgotten everywhere the room keeps it: the address the invitation
	// was emailed to, the log of the mails sent to them, and the
	// invitation mail's job, which River keeps a day after it ran (7 days
	// if it failed) and shows operators in its job list.
	var kept int
	if err := nb.pool.QueryRow(nb.ctx, `SELECT (SELECT count(*) FROM person_deliveries WHERE room_id = $1 AND recipient <> '')
		+ (SELECT count(*) FROM rooms WHERE id = $1 AND invite_email IS NOT NULL)
		+ (SELECT count(*) FROM river_job WHERE kind = 'notify_invite' AND (args->>'room_id')::bigint = $1 AND coalesce(args->>'to', '') <> '')`,
		turnRoom(t, nb, res.SeatToken)).Scan(&kept); err != nil || kept != 0 {
		t.Fatalf("%d rows of the room still hold Dave's addresses (%v)", kept, err)
	}
	d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicClosed, RoomID: turnRoom(t, nb, res.SeatToken), Side: negotiation.SideB}, Channel: jobs.ChannelEmail}
	if _, err := nb.svc.Notification(nb.ctx, d); err == nil || !strings.Contains(err.Error(), "no more email") {
		t.Fatalf("a notice after the unsubscribe: %v", err)
	}
}

func turnRoom(t *testing.T, nb *notifyBundle, seat string) int64 {
	t.Helper()
	id, err := nb.rooms.PersonRoomID(nb.ctx, seat)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestPersonWithoutAddressIsToldNothing: a person who gave no address to
// an invitation that was not emailed gets nothing, and the room goes on
// and agrees as before (the inviter is told).
func TestPersonWithoutAddressIsToldNothing(t *testing.T) {
	nb := setupNotify(t)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := nb.rooms.InvitationByCode(nb.ctx, open.InviteCode, nil)
	if err != nil || inv.Emailed {
		t.Fatalf("invitation: %v %+v", err, inv)
	}
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "")})
	if err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Read(nb.ctx, nb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.a, open.RoomToken, cv)
	if r, err := nb.rooms.AnswerAsPerson(nb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: hash}); err != nil || r.State != negotiation.StateAgreed {
		t.Fatalf("agree: %v %+v", err, r)
	}
	nb.mailWith(t, "alpha@example.test", "Agreed")
	nb.settle(t)
	for _, m := range nb.smtp.Mails() {
		if m.To[0] != "alpha@example.test" {
			t.Errorf("a mail to %v", m.To)
		}
	}
	if log := nb.personDeliveries(t, v.RoomID); len(log) != 0 {
		t.Errorf("deliveries to nobody: %v", log)
	}
	var jobsToPerson int
	if err := nb.pool.QueryRow(nb.ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_email' AND (args->>'user_id')::bigint = 0`).Scan(&jobsToPerson); err != nil || jobsToPerson != 0 {
		t.Errorf("%d jobs for a person with no address (%v)", jobsToPerson, err)
	}
}

// TestARoomsMailsAreOneThread: the mails of one room, through River and
// the real SMTP server, refer to one id of the room (In-Reply-To,
// References), so mail clients show them as one conversation: the
// invitation, the your-turn and agreed mails to the person who answered
// it, and the inviter's request and agreed mails; another room of the
// same title is another conversation.
func TestARoomsMailsAreOneThread(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), Title: "Coffee",
		InviteEmail: "dave@stranger.test"})
	if err != nil {
		t.Fatal(err)
	}
	invite := nb.mailTo(t, "dave@stranger.test", 1)
	res, err := nb.rooms.AnswerInvitation(nb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "15")})
	if err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Read(nb.ctx, nb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	request := nb.mailWith(t, "alpha@example.test", "Approve")
	nb.confirm(t, nb.a, open.RoomToken, cv)
	turn := nb.mailTo(t, "dave@stranger.test", 2)
	if _, err := nb.rooms.AnswerAsPerson(nb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	agreed := nb.mailTo(t, "dave@stranger.test", 3)
	inviterAgreed := nb.mailWith(t, "alpha@example.test", "Agreed")

	thread := invite.Header.Get("References")
	if !strings.HasPrefix(thread, "<taasky.room.") || !strings.HasSuffix(thread, "@127.0.0.1>") {
		t.Fatalf("the invitation refers to %q", thread)
	}
	ids := map[string]bool{}
	for name, p := range map[string]*notify.Parsed{"invitation": invite, "your turn": turn, "agreed": agreed,
		"the inviter's request": request, "the inviter's agreed": inviterAgreed} {
		if p.Header.Get("References") != thread || p.Header.Get("In-Reply-To") != thread {
			t.Errorf("%s: In-Reply-To %q, References %q; the invitation's %q", name, p.Header.Get("In-Reply-To"), p.Header.Get("References"), thread)
		}
		ids[p.Header.Get("Message-ID")] = true
	}
	if len(ids) != 5 || ids[thread] {
		t.Errorf("Message-IDs %v, the thread %q: each mail its own, none the thread's", ids, thread)
	}

	other, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), Title: "Coffee",
		InviteEmail: "erin@stranger.test"})
	if err != nil || other.RoomToken == open.RoomToken {
		t.Fatal(err)
	}
	if again := nb.mailTo(t, "erin@stranger.test", 1).Header.Get("References"); again == thread || !strings.HasPrefix(again, "<taasky.room.") {
		t.Errorf("another room's invitation refers to %q; the first's %q", again, thread)
	}
}
