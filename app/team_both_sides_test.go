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

// TestNobodyAnswersBothSides: Mo's agent negotiates with an agent of
// Ann's, in the same account or in another account Ann is in too, and
// asks Mo to approve the terms; then Mo is removed from alpha, whose owners
// answer for his seat. Ann, an owner of alpha, is not one of them here:
// she is the other side's human, and answering both she would agree with
// herself (as a join by her own agent is refused). Her room page offers
// no answer and says why, her answer is refused, no request is composed
// for her; Otto, alpha's other owner, answers it.
func TestNobodyAnswersBothSides(t *testing.T) {
	for _, where := range []string{"alpha", "ozone"} {
		t.Run(where, func(t *testing.T) {
			tb, ann, _, mo, _ := lifeTeam(t)
			if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", "otto@example.test", app.MemberRoleOwner); err != nil {
				t.Fatal(err)
			}
			otto := tb.person("otto@example.test", true)
			if where == "ozone" {
				if err := tb.accounts.AddMemberAsOperator(tb.ctx, "ozone", ann.Email, app.MemberRoleMember); err != nil {
					t.Fatal(err)
				}
			}
			annAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ann.ID), where, "Ann's agent", ann.Email)
			if err != nil {
				t.Fatal(err)
			}
			moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
			if err != nil {
				t.Fatal(err)
			}
			open, err := tb.rooms.Open(tb.ctx, annAgent, app.OpenInput{Schema: teamSchema, Title: "Ann and Mo",
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

			h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideB, "")
			if err != nil || h.Side != negotiation.SideB || !h.SeatOrphaned || h.CanDecide || !h.OtherSide {
				t.Fatalf("Mo's side on Ann's room page: %+v %v", h, err)
			}
			if h, err := tb.rooms.ForHuman(tb.ctx, otto.ID, roomID, negotiation.SideB, ""); err != nil || !h.CanDecide || h.OtherSide {
				t.Fatalf("Mo's side on Otto's room page: %+v %v", h, err)
			}
			tb.refused("Ann answers for Mo's side", app.ErrConflict,
				"confirmation: you are the other side's human in this room, and nobody answers both sides of a room; the account's other owners answer for this side, whose human left",
				func() error { _, err := tb.rooms.DecideAsOwner(tb.ctx, ann.ID, roomID, cb.ID, hash, true); return err })

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
					Side: negotiation.SideB, UserID: u.ID, ConfirmationID: cb.ID}, Channel: jobs.ChannelEmail})
			}
			if _, err := request(ann); !errors.As(err, new(*jobs.SkipError)) {
				t.Errorf("a request composed for Ann: %v", err)
			}
			if msg, err := request(otto); err != nil || !msg.HandedOver || msg.OneTapURL == "" {
				t.Errorf("the request to Otto: %+v %v", msg, err)
			}
			if d, err := tb.rooms.DecideAsOwner(tb.ctx, otto.ID, roomID, cb.ID, hash, true); err != nil || d.Result != negotiation.ResultApplied {
				t.Fatalf("Otto answers for Mo's side: %+v %v", d, err)
			}
		})
	}
}
