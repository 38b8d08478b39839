package app

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestInviteEmail: an open with invite_email mails the invitation, through
// River and a real SMTP server: who invites, the title, the link that opens
// it, the deadline in UTC (the invitee's zone is not known; the inviter's
// is none of theirs); no limit; its List-Unsubscribe is the link that
// refuses further invitations; the opener's delivery log says it was sent; River's
// tables never hold the code.
func TestInviteEmail(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	acc := NewAccounts(nb.pool)
	ua, _ := acc.UserByEmail(nb.ctx, "alpha@example.test")
	if err := acc.SetUserTimeZone(nb.ctx, ua.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, InviteEmail: "pat"}); ErrorMessageOf(err) == "" ||
		!strings.Contains(ErrorMessageOf(err), "invite_email: not an email address") {
		t.Fatalf("a bad address: %v", err)
	}
	deadline := nb.rooms.now().Add(30 * 24 * time.Hour).Truncate(time.Hour)
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(aLimits),
		Subject: meeting(10, "20.00"), Title: "Quarterly review", Deadline: &deadline, InviteEmail: "Pat@Example.test"})
	if err != nil {
		t.Fatal(err)
	}
	mail := nb.mailTo(t, "pat@example.test", 1)
	if mail.Subject != "ALPHA invites you to negotiate “Quarterly review”" {
		t.Errorf("subject %q", mail.Subject)
	}
	for _, want := range []string{"ALPHA's agent would like to agree on “Quarterly review” with you.", "See the invitation:", open.InviteURL,
		"Deadline: " + deadline.UTC().Format("Mon 2 Jan 2006, 15:04") + " (UTC)", "The invitation expires"} {
		if !strings.Contains(mail.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, mail.Text)
		}
	}
	if !strings.Contains(mail.HTML, `href="`+open.InviteURL+`"`) {
		t.Errorf("html lacks the link:\n%s", mail.HTML)
	}
	refuse := nb.svc.RefuseInvitationsURL("pat@example.test")
	if mail.Header.Get("List-Unsubscribe") != "<"+refuse+">" || !strings.Contains(mail.Text, "Refuse every further invitation to this address: "+refuse) ||
		!strings.Contains(mail.Header.Get("From"), "taasky@example.test") {
		t.Errorf("headers: %v", mail.Header)
	}
	nb.assertNoLimits(t)
	// The link opens the invitation.
	if inv, err := nb.rooms.InvitationByCode(nb.ctx, open.InviteURL, time.UTC); err != nil || inv == nil {
		t.Fatalf("the mailed link: %v", err)
	}
	// The opener's log: one line, sent, to the invitee.
	var log []Delivery
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if log = nb.log(t, "alpha@example.test"); len(log) == 1 && log[0].Status == jobs.StatusSent {
			break
		}
	}
	if len(log) != 1 || log[0].Topic != jobs.TopicInvite || log[0].Channel != jobs.ChannelEmail || log[0].Status != jobs.StatusSent ||
		log[0].Recipient != "pat@example.test" || log[0].RoomID != open.View.RoomID || log[0].Attempts != 1 {
		t.Fatalf("the opener's log: %+v", log)
	}
	var args []byte
	if err := nb.pool.QueryRow(nb.ctx, `SELECT args FROM river_job WHERE kind = 'notify_invite'`).Scan(&args); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(args, []byte(open.InviteCode)) {
		t.Fatalf("the job holds the invitation's code: %s", args)
	}
}

// TestInviteEmailToAUser: an invitation to the address of someone who
// uses Taasky already speaks their language and writes its moments in
// their zone, named, as an invitation to join an account does
// (selectInviteReader), not the inviter's language and UTC, the guesses
// for a stranger; a stranger still gets those (TestInviteEmail).
func TestInviteEmailToAUser(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	acc := NewAccounts(nb.pool)
	ua, _ := acc.UserByEmail(nb.ctx, "alpha@example.test")
	ub, _ := acc.UserByEmail(nb.ctx, "beta@example.test")
	for _, set := range []error{acc.SetUserLanguage(nb.ctx, ua.ID, "de"), acc.SetUserTimeZone(nb.ctx, ua.ID, "Europe/Berlin"),
		acc.SetUserLanguage(nb.ctx, ub.ID, "ja"), acc.SetUserTimeZone(nb.ctx, ub.ID, "Pacific/Chatham")} {
		if set != nil {
			t.Fatal(set)
		}
	}
	deadline := time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC) // 1 Jan 2027, 12:45 in Chatham (UTC+13:45)
	if _, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Title: "Lunch", Deadline: &deadline,
		InviteEmail: "Beta@Example.test"}); err != nil {
		t.Fatal(err)
	}
	mail := nb.mailTo(t, "beta@example.test", 1)
	if !strings.Contains(mail.Subject, "「Lunch」") {
		t.Errorf("subject %q, want it in Japanese", mail.Subject)
	}
	if !strings.Contains(mail.Text, "2027年1月1日(金) 12:45 (Pacific/Chatham)") || strings.Contains(mail.Text, "(UTC)") ||
		strings.Contains(mail.Text, "ここでの時刻はUTCです") {
		t.Errorf("the deadline is not in the invitee's zone, or the mail says it is in UTC:\n%s", mail.Text)
	}
}

// TestInvitationRechecks: the invitation email is written from the room as
// it is when the job runs: nothing is sent for an invitation answered,
// expired, or whose sealed code does not open the room.
func TestInvitationRechecks(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	openWithInvite := func() (*OpenResult, jobs.InviteArgs, jobs.Delivery) {
		t.Helper()
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "Lunch", InviteEmail: "pat@example.test"})
		if err != nil {
			t.Fatal(err)
		}
		var a jobs.InviteArgs
		var id int64
		if err := rb.pool.QueryRow(rb.ctx, `SELECT id, args FROM river_job WHERE kind = 'notify_invite' AND (args->>'room_id')::bigint = $1`,
			open.View.RoomID).Scan(&id, &a); err != nil {
			t.Fatal(err)
		}
		d := jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicInvite, RoomID: a.RoomID, Side: negotiation.SideA, UserID: a.UserID},
			JobID: id, Attempt: 1, Channel: jobs.ChannelEmail}
		return open, a, d
	}
	skipped := func(err error, why string) {
		t.Helper()
		var s *jobs.SkipError
		if !errors.As(err, &s) || !strings.Contains(s.Reason, why) {
			t.Errorf("%v, want a skip: %s", err, why)
		}
	}

	open, a, d := openWithInvite()
	n, err := svc.Invitation(rb.ctx, d, a)
	if err != nil || n.To != "pat@example.test" || n.InviteURL != open.InviteURL || n.Title != "Lunch" || n.Them != "ALPHA" ||
		!n.ExpiresAt.Equal(rb.rooms.now().Add(negotiation.InvitationTTL)) {
		t.Fatalf("invitation: %v %+v", err, n)
	}
	tampered := a
	tampered.Code = append([]byte(nil), a.Code...)
	tampered.Code[len(tampered.Code)-1] ^= 1
	_, err = svc.Invitation(rb.ctx, d, tampered)
	skipped(err, "cannot be read")
	_, b, _ := openWithInvite()
	b.RoomID = a.RoomID // another room's sealed code, moved to this room
	_, err = svc.Invitation(rb.ctx, d, b)
	skipped(err, "cannot be read") // the seal is bound to its room

	if _, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Invitation(rb.ctx, d, a)
	skipped(err, "answered or withdrawn")

	_, a2, d2 := openWithInvite()
	rb.advance(negotiation.InvitationTTL + time.Minute)
	_, err = svc.Invitation(rb.ctx, d2, a2)
	skipped(err, "expired")

	// The mail's refusal link: the address gets no further invitation.
	_, a3, d3 := openWithInvite()
	n, err = svc.Invitation(rb.ctx, d3, a3)
	if err != nil || !strings.HasPrefix(n.UnsubscribeURL, rb.rooms.baseURL+"/refuse/ri_") {
		t.Fatalf("the invitation's refusal link: %v %+v", err, n)
	}
	token := strings.TrimPrefix(n.UnsubscribeURL, rb.rooms.baseURL+"/refuse/")
	if _, err := svc.RefuseInvitations(rb.ctx, token[:len(token)-1]+"x"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("a forged refusal: %v", err)
	}
	if email, err := svc.RefuseInvitations(rb.ctx, token); err != nil || email != "pat@example.test" {
		t.Fatalf("refuse: %q %v", email, err)
	}
	_, err = svc.Invitation(rb.ctx, d3, a3)
	skipped(err, "refused invitations")
	// The refusal keeps a keyed hash of the address, which the database
	// alone cannot test an address against: no plain SHA-256 of it.
	if held := tablesHolding(t, rb.ctx, rb.pool, map[string]string{"plain hash": hex.EncodeToString(plainEmailHash("pat@example.test"))}); len(held) > 0 {
		t.Errorf("the database holds the refusing address's plain SHA-256: %v", held)
	}
}
