package app

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestPersonAnswersInvitation: a person without an agent picks a slot
// (join, request and answer in one change); the invitation is then used;
// their seat shows the room as side b; the inviter's approval agrees it.
// A counter with a bad value changes nothing and names the field. The
// log replays to the stored rooms.
func TestPersonAnswersInvitation(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	slots := []json.RawMessage{
		json.RawMessage(`{"start":"2026-10-14T09:00:00+02:00","end":"2026-10-14T09:30:00+02:00"}`),
		json.RawMessage(`{"start":"2026-10-15T14:00:00+02:00","end":"2026-10-15T14:30:00+02:00"}`),
	}
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Slots: slots, Title: "Coffee?"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := rb.rooms.InvitationByCode(rb.ctx, open.InviteURL, nil)
	if err != nil || !inv.Open || inv.InviterName != "ALPHA" || inv.Title != "Coffee?" || inv.Card == nil || len(inv.Card.Options) != 2 {
		t.Fatalf("invitation: %v %+v", err, inv)
	}
	// To be answered by its end (72 hours), before the room's deadline.
	if want := time.Unix(0, rb.clock.Load()).Add(negotiation.InvitationTTL); !inv.Deadline.Equal(want) {
		t.Errorf("answer by %v, want the invitation's end %v", inv.Deadline, want)
	}
	pick := inv.Card.Options[1].SubjectHash
	res, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: pick, Email: "Pat@Example.test"})
	if err != nil || !strings.HasPrefix(res.SeatToken, "ps_") || res.State != negotiation.StateAwaiting {
		t.Fatalf("answer: %v %+v", err, res)
	}
	again, err := rb.rooms.InvitationByCode(rb.ctx, open.InviteCode, nil)
	if err != nil || again.Open || again.Refusal != "the invitation has been used already" {
		t.Fatalf("used invitation: %v %+v", err, again)
	}
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin}); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("second answer: %v", err)
	}
	seat, err := rb.rooms.PersonRoom(rb.ctx, res.SeatToken, nil)
	if err != nil || seat.Side != negotiation.SideB || !seat.CanDecide || seat.View.Approvals.You == nil || *seat.View.Approvals.You != pick {
		t.Fatalf("seat: %v %+v", err, seat)
	}
	if _, err := rb.rooms.PersonRoom(rb.ctx, "ps_nope", nil); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("unknown seat: %v", err)
	}
	if _, err := rb.rooms.AnswerAsPerson(rb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictReject}); ErrorCodeOf(err) != ErrConflict {
		t.Fatalf("out of turn: %v", err)
	}
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, open.RoomToken, "approve", pick)
	if err != nil {
		t.Fatal(err)
	}
	if d := rb.confirm(t, rb.a, open.RoomToken, cv); d.State != negotiation.StateAgreed {
		t.Fatalf("a's approval: %+v", d)
	}

	other, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = rb.rooms.AnswerInvitation(rb.ctx, other.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter,
		Terms: json.RawMessage(`{"meeting_time":{"start":"2026-10-14T10:00:00Z","end":"2026-10-14T10:30:00Z"},"fee":{"amount":"1.234","currency":"EUR"}}`)})
	if ErrorCodeOf(err) != ErrInvalid || !strings.HasPrefix(ErrorMessageOf(err), "fee") {
		t.Fatalf("bad counter: %v", err)
	}
	if inv, err := rb.rooms.InvitationByCode(rb.ctx, other.InviteCode, nil); err != nil || !inv.Open {
		t.Fatalf("a refused counter leaves the invitation open: %v %+v", err, inv)
	}
	res2, err := rb.rooms.AnswerInvitation(rb.ctx, other.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "15")})
	if err != nil {
		t.Fatal(err)
	}
	seat2, err := rb.rooms.PersonRoom(rb.ctx, res2.SeatToken, nil)
	if err != nil || seat2.View.Round != 2 || seat2.Card == nil || seat2.Card.TabledBy != negotiation.SideB {
		t.Fatalf("after the counter: %v %+v", err, seat2)
	}
	rb.checkClean(t)
}

// TestPersonSeatNewSchemaOnlyWhenAsked: the new-schema note on a person's
// card shows while they are asked to confirm the other side's terms, not
// under their own proposal, and not once the room ended.
func TestPersonSeatNewSchemaOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "")})
	if err != nil {
		t.Fatal(err)
	}
	note := func(when string) bool {
		t.Helper()
		h, err := rb.rooms.PersonRoom(rb.ctx, res.SeatToken, nil)
		if err != nil || h.Card == nil {
			t.Fatalf("%s: %v %+v", when, err, h)
		}
		return h.Card.NewSchema
	}
	if note("under their own proposal") {
		t.Error("the note shows under the person's own proposal")
	}
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, open.RoomToken, MoveInput{Verdict: "counter", Subject: meeting(12, "")}); err != nil {
		t.Fatal(err)
	}
	if !note("asked to confirm their terms") {
		t.Error("the note is missing while the person is asked to confirm the other side's terms")
	}
	if _, err := rb.rooms.AnswerAsPerson(rb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictReject}); err != nil {
		t.Fatal(err)
	}
	if note("closed") {
		t.Error("the note shows on a closed room")
	}
}
