package app_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestHandedOverLinkOfAnOwnerWhoLeft: Mo leaves his seat to the owners,
// Ann and Otto, who are each sent his pending confirmation with a one-tap
// link (handedOverLink); then Otto is removed. His link stops as any link
// of a removed member does: it answers nothing (the confirmation still
// waits for Ann) and its page says why.
func TestHandedOverLinkOfAnOwnerWhoLeft(t *testing.T) {
	tb, ann, otto, link, roomID, confID := handedOverLink(t)
	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", otto.ID); err != nil {
		t.Fatal(err)
	}
	tb.stoppedLink(ann, link, roomID, confID, app.LinkStoppedLeft,
		"this link no longer works: its person is no longer in the account, whose owners answer instead")
}

// TestHandedOverLinkOfAnOwnerDemoted: the same link stops when Otto is
// made a member (members do not answer for a seat whose human left); an
// admin's role would not answer either.
func TestHandedOverLinkOfAnOwnerDemoted(t *testing.T) {
	tb, ann, otto, link, roomID, confID := handedOverLink(t)
	if err := tb.accounts.ChangeRole(tb.ctx, ann.ID, "alpha", otto.ID, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	tb.stoppedLink(ann, link, roomID, confID, app.LinkStoppedRole,
		"this link no longer works: its person's role no longer answers for this seat, whose owners answer instead")
}

// TestHandedOverLinkNamesWhoAnswered: Otto answers Mo's confirmation by
// the link he was sent as an owner: the audit log says Otto answered, and
// the confirmation was decided by him, as when an owner answers on the
// room page (an owner's link answered as nobody: "operator" in the log).
func TestHandedOverLinkNamesWhoAnswered(t *testing.T) {
	tb, ann, otto, link, _, confID := handedOverLink(t)
	if d, err := tb.rooms.DecideOneTap(tb.ctx, link, "", true); err != nil || d.Result != negotiation.ResultApplied {
		t.Fatalf("otto answers by his link: %+v %v", d, err)
	}
	entries, _, err := tb.accounts.AuditLog(tb.ctx, ann.ID, "alpha", "")
	if err != nil {
		t.Fatal(err)
	}
	if e := entries[0]; e.Action != app.AuditConfirmationAnswer || e.Detail["confirmation"] != confID ||
		e.ActorID != otto.ID || e.Actor != "otto@example.test" {
		t.Errorf("the newest entry: %+v", e)
	}
	var by *int64
	if err := tb.pool.QueryRow(tb.ctx, `SELECT decided_by FROM confirmations WHERE id = $1`, confID).Scan(&by); err != nil {
		t.Fatal(err)
	}
	if by == nil || *by != otto.ID {
		t.Errorf("decided by %v, want otto (%d)", by, otto.ID)
	}
}

// handedOverLink: Mo, a member of alpha, asks to cancel a room and is
// removed; Otto, an owner beside Ann, is sent the confirmation with a
// one-tap link. It returns the link, the room and the confirmation.
func handedOverLink(t *testing.T) (*teamBundle, app.User, app.User, string, int64, string) {
	tb, ann, otto, notes, req, roomID, confID := handOver(t)
	msg, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: req.Notice, Channel: jobs.ChannelEmail})
	if err != nil || !msg.HandedOver || msg.OneTapURL == "" {
		t.Fatalf("the request to otto: %+v %v", msg, err)
	}
	return tb, ann, otto, msg.OneTapURL[strings.LastIndex(msg.OneTapURL, "/")+1:], roomID, confID
}

// stoppedLink checks that link answers nothing, refused with want, that
// its page says why, and that the confirmation still waits for ann.
func (tb *teamBundle) stoppedLink(ann app.User, link string, roomID int64, confID string, why app.LinkStop, want string) {
	t := tb.t
	t.Helper()
	tb.refused("otto's link", app.ErrConflict, want,
		func() error { _, err := tb.rooms.DecideOneTap(tb.ctx, link, "", true); return err })
	if card, err := tb.rooms.OneTapCard(tb.ctx, link); err != nil || card.Stopped != why {
		t.Errorf("otto's link's page: %+v %v", card, err)
	}
	h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideA, "")
	if err != nil || h.View.State.Terminal() || h.View.PendingConfirmation == nil || h.View.PendingConfirmation.ID != confID || !h.CanDecide {
		t.Fatalf("the room for ann: %+v %v", h, err)
	}
}

// moAgentsRoom: Mo's agent (in alpha) opens a room, which Oz's agent (in
// ozone) joins; it returns Mo's agent and the opening.
func moAgentsRoom(t *testing.T, tb *teamBundle, mo, oz app.User) (app.Agent, *app.OpenResult) {
	t.Helper()
	moAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, mo.ID), "alpha", "Mo's agent", mo.Email)
	if err != nil {
		t.Fatal(err)
	}
	ozAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, oz.ID), "ozone", "Oz's agent", oz.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, moAgent, app.OpenInput{Schema: teamSchema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, ozAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	return moAgent, open
}

// handOver: Mo, a member of alpha, asks to cancel a room and is removed;
// his request is handed to Otto, an owner beside Ann. It returns the
// request's mail to Otto, not yet composed, its room and confirmation.
func handOver(t *testing.T) (*teamBundle, app.User, app.User, *app.Notifications, jobs.EmailArgs, int64, string) {
	tb, ann, _, mo, oz := lifeTeam(t)
	if err := tb.accounts.AddMemberAsOperator(tb.ctx, "alpha", "otto@example.test", app.MemberRoleOwner); err != nil {
		t.Fatal(err)
	}
	otto := tb.person("otto@example.test", true)
	moAgent, open := moAgentsRoom(t, tb, mo, oz)
	conf, v, err := tb.rooms.RequestConfirmation(tb.ctx, moAgent, open.RoomToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID); err != nil {
		t.Fatal(err)
	}
	notes, req := tb.requestMail(otto.ID, "no request to otto, an owner")
	return tb, ann, otto, notes, req, v.RoomID, conf.ID
}

// requestMail finds the confirmation request queued for the person userID
// (failing with missing if there is none), and the notifications service
// that composes its mail.
func (tb *teamBundle) requestMail(userID int64, missing string) (*app.Notifications, jobs.EmailArgs) {
	t := tb.t
	t.Helper()
	var args []byte
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE args->>'topic' = 'request' AND (args->>'user_id')::bigint = $1`,
		userID).Scan(&args); err != nil {
		t.Fatalf("%s: %v", missing, err)
	}
	var req jobs.EmailArgs
	if err := json.Unmarshal(args, &req); err != nil {
		t.Fatal(err)
	}
	rc, err := river.NewClient(riverpgxv5.New(tb.pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := app.NewNotifications(app.NotificationsConfig{Pool: tb.pool, River: rc, Rooms: tb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{3}, 32), BaseURL: "https://taasky.example"})
	if err != nil {
		t.Fatal(err)
	}
	return notes, req
}

// TestHandedOverLinksOthersKeep: removing Otto from alpha stops his
// handed-over link there and no one else's: Ann's link for the same
// request, and Otto's own for a request handed to him in another account
// where he stays an owner, still answer.
func TestHandedOverLinksOthersKeep(t *testing.T) {
	tb, ann, otto, notes, toOtto, _, _ := handOver(t)
	link := func(n *app.Notifications, req jobs.EmailArgs) string {
		t.Helper()
		msg, err := n.Notification(tb.ctx, jobs.Delivery{Notice: req.Notice, Channel: jobs.ChannelEmail})
		if err != nil || !msg.HandedOver || msg.OneTapURL == "" {
			t.Fatalf("a handed-over request: %+v %v", msg, err)
		}
		return msg.OneTapURL[strings.LastIndex(msg.OneTapURL, "/")+1:]
	}
	ottoAlpha := link(notes, toOtto)
	annNotes, toAnn := tb.requestMail(ann.ID, "no request to ann, an owner")
	annAlpha := link(annNotes, toAnn)

	// In ozone, where Oz and Otto are owners, Pat asks to cancel a room and
	// is removed: the request is handed to Oz and Otto.
	oz := tb.person("oz@example.test", true)
	for email, role := range map[string]app.MemberRole{otto.Email: app.MemberRoleOwner, "pat@example.test": app.MemberRoleMember} {
		if err := tb.accounts.AddMemberAsOperator(tb.ctx, "ozone", email, role); err != nil {
			t.Fatal(err)
		}
	}
	pat := tb.person("pat@example.test", true)
	patAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, pat.ID), "ozone", "Pat's agent", pat.Email)
	if err != nil {
		t.Fatal(err)
	}
	annAgent, _, err := tb.accounts.CreateAgent(app.AsActor(tb.ctx, ann.ID), "alpha", "Ann's agent", ann.Email)
	if err != nil {
		t.Fatal(err)
	}
	open, err := tb.rooms.Open(tb.ctx, patAgent, app.OpenInput{Schema: teamSchema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.rooms.Join(tb.ctx, annAgent, app.JoinInput{InviteCode: open.InviteCode, Schema: teamSchema}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.rooms.RequestConfirmation(tb.ctx, patAgent, open.RoomToken, negotiation.VerdictCancel, ""); err != nil {
		t.Fatal(err)
	}
	if err := tb.accounts.RemoveMember(tb.ctx, oz.ID, "ozone", pat.ID); err != nil {
		t.Fatal(err)
	}
	var ozoneReq []byte
	if err := tb.pool.QueryRow(tb.ctx, `SELECT args FROM river_job WHERE args->>'topic' = 'request' AND (args->>'user_id')::bigint = $1
		ORDER BY id DESC LIMIT 1`, otto.ID).Scan(&ozoneReq); err != nil {
		t.Fatal(err)
	}
	var toOttoOzone jobs.EmailArgs
	if err := json.Unmarshal(ozoneReq, &toOttoOzone); err != nil {
		t.Fatal(err)
	}
	ottoOzone := link(notes, toOttoOzone)
	if ottoOzone == ottoAlpha {
		t.Fatal("otto's two links are one")
	}

	if err := tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", otto.ID); err != nil {
		t.Fatal(err)
	}
	if card, err := tb.rooms.OneTapCard(tb.ctx, ottoAlpha); err != nil || card.Stopped != app.LinkStoppedLeft {
		t.Errorf("otto's alpha link: %+v %v", card, err)
	}
	for name, l := range map[string]string{"ann's alpha link": annAlpha, "otto's ozone link": ottoOzone} {
		if card, err := tb.rooms.OneTapCard(tb.ctx, l); err != nil || card.Stopped != "" {
			t.Errorf("%s stopped: %+v %v", name, card, err)
		}
		if d, err := tb.rooms.DecideOneTap(tb.ctx, l, "", true); err != nil || d.Result != negotiation.ResultApplied {
			t.Errorf("%s answers: %+v %v", name, d, err)
		}
	}
}
