package app_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// TestOwnersCancelALeaversRoom: Mo's agent negotiates with Oz's, and Mo
// is removed from alpha: his agent's key stops working, and the room would
// wait for its deadline. Oz (the other side), Ada (an admin: she does not
// answer for others) and a seat that still has its human cannot cancel
// it for alpha; Ann, alpha's owner, can: the room closes as cancelled,
// Oz's human is told with the closed notice, the owner's answer is in
// alpha's audit log, and the room still replays. Cancelling again is
// refused as closed already.
func TestOwnersCancelALeaversRoom(t *testing.T) {
	tb, ann, ada, mo, oz := lifeTeam(t)
	ozAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, oz.ID), "ozone", "Oz's agent", oz.Email)
	if err != nil {
		t.Fatal(err)
	}
	moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, ozAgent, app.OpenInput{Schema: teamSchema, Title: "Oz and Mo",
		Subject: json.RawMessage(`{"meeting_time":{"start":"2026-11-14T10:00:00Z","end":"2026-11-14T10:30:00Z"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	roomID := open.View.RoomID
	if _, err := tb.rooms.Join(tb.ctx, moAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	tb.refused("Ann cancels Mo's seat while Mo is a member", app.ErrUnauthorized,
		"cancel: only the account's owners cancel a room, and only for a side whose human left the account",
		func() error { _, err := tb.rooms.CancelForSeat(tb.ctx, ann.ID, roomID, negotiation.SideB); return err })
	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID); err != nil {
		t.Fatal(err)
	}
	var lastJob int64
	if err := tb.pool.QueryRow(tb.ctx, `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&lastJob); err != nil {
		t.Fatal(err)
	}
	tb.refused("Oz cancels for alpha", app.ErrNotFound, "room not found",
		func() error { _, err := tb.rooms.CancelForSeat(tb.ctx, oz.ID, roomID, negotiation.SideB); return err })
	tb.refused("Ada cancels", app.ErrUnauthorized,
		"cancel: only the account's owners cancel a room, and only for a side whose human left the account",
		func() error { _, err := tb.rooms.CancelForSeat(tb.ctx, ada.ID, roomID, negotiation.SideB); return err })
	if h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideB, ""); err != nil || !h.CanCancel {
		t.Fatalf("Mo's side on Ann's room page: %+v %v", h, err)
	}
	if h, err := tb.rooms.ForHuman(tb.ctx, ada.ID, roomID, negotiation.SideB, ""); err != nil || h.CanCancel {
		t.Fatalf("Mo's side on Ada's room page: %+v %v", h, err)
	}

	d, err := tb.rooms.CancelForSeat(tb.ctx, ann.ID, roomID, negotiation.SideB)
	if err != nil || d.State != negotiation.StateClosed || d.Result != negotiation.ResultApplied {
		t.Fatalf("Ann cancels: %+v %v", d, err)
	}
	var state, reason string
	if err := tb.pool.QueryRow(tb.ctx, `SELECT state, coalesce(closed_reason, '') FROM rooms WHERE id = $1`, roomID).Scan(&state, &reason); err != nil ||
		state != "closed" || reason != string(negotiation.ClosedCancelled) {
		t.Fatalf("the room: %s %s %v", state, reason, err)
	}
	var told int
	if err := tb.pool.QueryRow(tb.ctx, `SELECT count(*) FROM river_job WHERE id > $1 AND args->>'topic' = 'closed'
		AND (args->>'user_id')::bigint = $2`, lastJob, oz.ID).Scan(&told); err != nil || told == 0 {
		t.Fatalf("Oz was not told the room closed (%d, %v)", told, err)
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Action != app.AuditConfirmationAnswer || e.Actor != ann.Email || e.Detail["result"] != string(negotiation.ResultApplied) {
		t.Fatalf("the newest entry of alpha's audit log: %+v", e)
	}
	tb.refused("Ann cancels again", app.ErrConflict, "cancel: the room is closed already",
		func() error { _, err := tb.rooms.CancelForSeat(tb.ctx, ann.ID, roomID, negotiation.SideB); return err })
	rep, err := tb.rooms.Check(tb.ctx)
	if err != nil || len(rep.Differences) > 0 {
		t.Fatalf("check: %v\n%s", err, strings.Join(rep.Differences, "\n"))
	}
}
