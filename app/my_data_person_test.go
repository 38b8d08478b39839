package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestPersonData: a person's "Download my data", through their personal
// link only, holds their seat as its page shows it (the terms, their
// answers, their approval with its hash and moment), the address they gave, the seat's
// delivery log and the agreed room's receipt; never the inviter's limits,
// the seat's or the room's tokens, or the address an invitation was mailed
// to when they gave none (the invitation page does not show it either).
func TestPersonData(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	slots := []json.RawMessage{
		json.RawMessage(`{"start":"2026-10-14T09:00:00+02:00","end":"2026-10-14T09:30:00+02:00"}`),
		json.RawMessage(`{"start":"2026-10-15T14:00:00+02:00","end":"2026-10-15T14:30:00+02:00"}`),
	}
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Slots: slots, Title: "Coffee?",
		Limits: json.RawMessage(`{"meeting_time":{"min":"2026-10-13T07:41:00Z"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := rb.rooms.InvitationByCode(rb.ctx, open.InviteCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	pick := inv.Card.Options[1].SubjectHash
	res, err := rb.rooms.AnswerInvitation(rb.ctx, open.InviteCode, PersonAnswer{Verdict: negotiation.VerdictApprove, Hash: pick,
		Email: "Pat@Example.test", Lang: "fr", Zone: "Europe/Paris"})
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, rb.a, open.RoomToken, "approve", pick)
	if err != nil {
		t.Fatal(err)
	}
	if d := rb.confirm(t, rb.a, open.RoomToken, cv); d.State != negotiation.StateAgreed {
		t.Fatalf("a's approval: %+v", d)
	}

	pd, err := rb.rooms.PersonData(rb.ctx, res.SeatToken)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(pd)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	if pd.Format != MyDataFormat || pd.Version != MyDataVersion || pd.Kind != "person" || pd.Email != "pat@example.test" ||
		pd.EmailIsInvitation || pd.Language != "fr" || pd.TimeZone != "Europe/Paris" || pd.Inviter != "ALPHA" {
		t.Fatalf("the person's file:\n%s", s)
	}
	if pd.Room.Side != negotiation.SideB || pd.Room.State != negotiation.StateAgreed || pd.Room.Title != "Coffee?" || pd.Room.Receipt == "" ||
		!strings.Contains(s, string(pick)) || !approvedBy(pd.Room.Rounds, pick) {
		t.Fatalf("the person's room:\n%s", s)
	}
	if receipt, err := rb.rooms.Receipt(rb.ctx, pd.Room.ID); err != nil || receipt != pd.Room.Receipt {
		t.Errorf("the file's receipt is not the room's (%v)", err)
	}
	if len(pd.Deliveries) == 0 || pd.Deliveries[0].Recipient != "pat@example.test" || pd.Deliveries[0].Channel != "email" {
		t.Errorf("the seat's delivery log: %+v", pd.Deliveries)
	}
	for _, secret := range []string{"07:41", res.SeatToken, open.RoomToken, open.InviteCode} {
		if strings.Contains(s, secret) {
			t.Errorf("the file holds %q:\n%s", secret, s)
		}
	}
	if _, err := rb.rooms.PersonData(rb.ctx, "ps_nope"); ErrorCodeOf(err) != ErrNotFound {
		t.Fatalf("an unknown link: %v", err)
	}

	// Invited by mail, answering without an address: their news goes to
	// the invitation's address, which the file does not show.
	mailed, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, ""), InviteEmail: "invitee@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := rb.rooms.AnswerInvitation(rb.ctx, mailed.InviteCode, PersonAnswer{Verdict: negotiation.VerdictReject})
	if err != nil {
		t.Fatal(err)
	}
	pd2, err := rb.rooms.PersonData(rb.ctx, res2.SeatToken)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(pd2)
	if !pd2.EmailIsInvitation || pd2.Email != "" || strings.Contains(string(raw), "invitee@") || pd2.Room.ClosedReason != negotiation.ClosedRejected {
		t.Fatalf("the invited person's file:\n%s", raw)
	}
	rb.checkClean(t)
}

// approvedBy says whether rounds hold this side's approval of hash.
func approvedBy(rounds []RoundView, hash negotiation.SubjectHash) bool {
	for _, r := range rounds {
		if r.By == "you" && r.Verdict == negotiation.VerdictApprove && r.SubjectHash == hash && r.At != "" {
			return true
		}
	}
	return false
}
