package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestNobodyAnswersBothSidesOnceBothLeft: Ann owns alpha and ozone; Zed's
// agent (ozone) and Mo's (alpha) negotiate. Mo's agent asks him to
// approve Zed's offer; Ann removes Mo and answers for his seat (approve);
// Zed's agent asks Zed to approve too, and Ann removes Zed. She may not
// answer Zed's seat as well (she would agree with herself): her room page
// offers no answer there and says why, her answer is refused and no
// request is composed for her; Oz, ozone's other owner, answers it.
func TestNobodyAnswersBothSidesOnceBothLeft(t *testing.T) {
	tb, ann, _, mo, oz := lifeTeam(t)
	for _, m := range []struct {
		email string
		role  app.MemberRole
	}{{ann.Email, app.MemberRoleOwner}, {"zed@example.test", app.MemberRoleMember}} {
		if err := tb.accounts.AddMemberAsOperator(tb.ctx, "ozone", m.email, m.role); err != nil {
			t.Fatal(err)
		}
	}
	zed := tb.person("zed@example.test", true)
	zedAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, zed.ID), "ozone", "Zed's agent", zed.Email)
	if err != nil {
		t.Fatal(err)
	}
	moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, zedAgent, app.OpenInput{Schema: teamSchema, Title: "Zed and Mo",
		Subject: json.RawMessage(`{"meeting_time":{"start":"2026-11-14T10:00:00Z","end":"2026-11-14T10:30:00Z"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	roomID := open.View.RoomID
	j, err := tb.rooms.Join(tb.ctx, moAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema})
	if err != nil {
		t.Fatal(err)
	}
	v, err := tb.rooms.Read(tb.ctx, moAgent, j.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cb, _, err := tb.rooms.RequestConfirmation(tb.ctx, moAgent, j.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID); err != nil {
		t.Fatal(err)
	}
	if d, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, roomID, cb.ID, hash, true); err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("Ann answers for Mo's side: %+v %v", d, err)
	}
	ca, _, err := tb.rooms.RequestConfirmation(tb.ctx, zedAgent, open.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "ozone", zed.ID); err != nil {
		t.Fatal(err)
	}
	if h, err := tb.rooms.ForHuman(tb.ctx, oz.ID, roomID, negotiation.SideA, ""); err != nil || !h.CanDecide || h.AnsweredOtherSide {
		t.Fatalf("Zed's side on Oz's room page: %+v %v", h, err)
	}
	h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideA, "")
	if err != nil || h.Side != negotiation.SideA || !h.SeatOrphaned || h.CanDecide || !h.AnsweredOtherSide {
		t.Fatalf("Zed's side on Ann's room page: %+v %v", h, err)
	}
	tb.refused("Ann answers for Zed's side too", app.ErrConflict,
		"confirmation: you answered for the other side of this room, and nobody answers both sides of a room; the account's other owners answer for this side, whose human left",
		func() error { _, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, roomID, ca.ID, hash, true); return err })
	rc, err := river.NewClient(riverpgxv5.New(tb.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := app.NewNotifications(app.NotificationsConfig{Pool: tb.pool, River: rc, Rooms: tb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), BaseURL: "https://taasky.example"})
	if err != nil {
		t.Fatal(err)
	}
	request := func(u app.User) (*jobs.Notification, error) {
		return notes.Notification(tb.ctx, jobs.Delivery{Notice: jobs.Notice{Topic: jobs.TopicRequest, RoomID: roomID,
			Side: negotiation.SideA, UserID: u.ID, ConfirmationID: ca.ID}, Channel: jobs.ChannelEmail})
	}
	if _, err := request(ann); !errors.As(err, new(*jobs.SkipError)) {
		t.Errorf("a request composed for Ann: %v", err)
	}
	if msg, err := request(oz); err != nil || !msg.HandedOver {
		t.Errorf("the request to Oz: %+v %v", msg, err)
	}
	var state string
	if err := tb.pool.QueryRow(tb.ctx, `SELECT state FROM rooms WHERE id = $1`, roomID).Scan(&state); err != nil || state != "awaiting" {
		t.Fatalf("the room after Ann's refused answer: %s %v", state, err)
	}
	if d, err := tb.rooms.DecideAsOwner(tb.ctx, oz.ID, roomID, ca.ID, hash, true); err != nil || d.Result != negotiation.ResultApplied || d.State != negotiation.StateAgreed {
		t.Fatalf("Oz answers for Zed's side: %+v %v", d, err)
	}
}
