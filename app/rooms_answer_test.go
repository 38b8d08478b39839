package app

import (
	"encoding/json"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestAgentsMayNotAskForAPreapproval: the protocol refuses an agent's
// preapprove, before the service looks for the room, even in a room whose
// preapproval is pending; the human's own preapproval still applies.
func TestAgentsMayNotAskForAPreapproval(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Preapprove: true, Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-10-14T09:00:00+02:00","end":"2026-10-14T09:30:00+02:00"}`),
		json.RawMessage(`{"start":"2026-10-15T14:00:00+02:00","end":"2026-10-15T14:30:00+02:00"}`),
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{open.RoomToken, "rt_none"} {
		_, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, token, negotiation.VerdictPreapprove, "")
		if ErrorCodeOf(err) != ErrInvalid || ErrorMessageOf(err) != "verdict must be approve or reject" {
			t.Fatalf("token %s: %v", token, err)
		}
	}
	v, err := rb.rooms.Read(rb.ctx, rb.a, open.RoomToken)
	if err != nil || v.PendingConfirmation == nil || v.PendingConfirmation.Verdict != negotiation.VerdictPreapprove {
		t.Fatalf("the preapproval Open asked for: %v %+v", err, v)
	}
	if d := rb.confirm(t, rb.a, open.RoomToken, v.PendingConfirmation); d.Result != negotiation.ResultApplied {
		t.Fatalf("the human's preapproval: %+v", d)
	}
	rb.checkClean(t)
}

// TestPersonAnswerRefusals: a person's answers are refused with the
// protocol's words and codes, and change nothing.
func TestPersonAnswerRefusals(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: "dance"}); ErrorCodeOf(err) != ErrInvalid ||
		ErrorMessageOf(err) != `answer: must be approve, counter, reject or cancel (got "dance")` {
		t.Fatalf("dance: %v", err)
	}
	res, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: VerdictJoin})
	if err != nil || res.State != negotiation.StateAwaiting {
		t.Fatalf("join: %v %+v", err, res)
	}
	for _, c := range []struct {
		ans  PersonAnswer
		code ErrorCode
		msg  string
	}{
		{PersonAnswer{Verdict: VerdictJoin}, ErrInvalid, "answer: you have joined already"},
		{PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: "sha256:00"}, ErrConflict, "subject_hash does not match the terms on the table"},
		{PersonAnswer{Verdict: "maybe"}, ErrInvalid, `answer: must be approve, counter, reject or cancel (got "maybe")`},
	} {
		if _, err := rb.rooms.AnswerAsPerson(rb.ctx, res.SeatToken, c.ans); ErrorCodeOf(err) != c.code || ErrorMessageOf(err) != c.msg {
			t.Errorf("%s: %v (%s), want %s %q", c.ans.Verdict, err, ErrorCodeOf(err), c.code, c.msg)
		}
	}
	seat, err := rb.rooms.PersonRoom(rb.ctx, res.SeatToken, nil)
	if err != nil || seat.View.Round != 1 || seat.View.Turn == nil || *seat.View.Turn != "you" {
		t.Fatalf("a refused answer changed the room: %v %+v", err, seat)
	}
	if _, err := rb.rooms.AnswerAsPerson(rb.ctx, res.SeatToken, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "15")}); err != nil {
		t.Fatal(err)
	}
	rb.checkClean(t)
}
