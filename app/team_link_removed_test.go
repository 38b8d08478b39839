package app_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// TestLinkIssuedWhileItsPersonIsRemoved: Mo's agent asks him to confirm,
// and his request's mail is composed (its one-tap link issued) while Ann
// removes him. The removal stops his links, but the mail's statement read
// his seat as his (the removal had not committed) and stored its link
// after the removal's stop had run: Mo, removed, was mailed a link that
// answered for the seat the account's owners now answer for. A test
// transaction holds the removal after it stopped his links (a table it
// writes next), so the mail is composed in that window whatever the
// timing. Now his link is not issued (or, issued first, it is stopped):
// it answers nothing, and the confirmation waits for the owners.
func TestLinkIssuedWhileItsPersonIsRemoved(t *testing.T) {
	tb, ann, _, mo, oz := lifeTeam(t)
	moAgent, open := moAgentsRoom(t, tb, mo, oz)
	conf, v, err := tb.rooms.RequestConfirmation(tb.ctx, moAgent, open.RoomToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	notes, req := tb.requestMail(mo.ID, "no request to mo")
	hold := pgtest.HoldLock(t, tb.pool, `LOCK TABLE user_sessions IN SHARE MODE`)
	removed := make(chan error, 1)
	go func() { removed <- tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", mo.ID) }()
	hold.WaitFor(1, "the removal does not wait for the held table")
	type composed struct {
		msg *jobs.Notification
		err error
	}
	mail := make(chan composed, 1)
	go func() {
		msg, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: req.Notice, Channel: jobs.ChannelEmail})
		mail <- composed{msg, err}
	}()
	// The mail is composed, or waits behind the removal.
	hold.WaitForOr(2, func() bool { return len(mail) > 0 }, "the mail neither composed nor waiting")
	hold.Release()
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	got := <-mail
	if got.err != nil {
		if _, ok := errors.AsType[*jobs.SkipError](got.err); !ok {
			t.Fatalf("mo's request: %v", got.err)
		}
		return // not sent: no link
	}
	if got.msg.OneTapURL == "" {
		t.Fatalf("mo's request without a link: %+v", got.msg)
	}
	link := got.msg.OneTapURL[strings.LastIndex(got.msg.OneTapURL, "/")+1:]
	d, err := tb.rooms.DecideOneTap(tb.ctx, link, "", true)
	if err == nil {
		t.Fatalf("mo, removed, answered by the link mailed to him: %s", d.Result)
	}
	h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, v.RoomID, negotiation.SideA, "")
	if err != nil || h.View.PendingConfirmation == nil || h.View.PendingConfirmation.ID != conf.ID || !h.CanDecide {
		t.Fatalf("the room for ann: %+v %v", h, err)
	}
}

// TestHandedLinkIssuedWhileItsOwnerIsRemoved: Mo left his seat to the
// owners, Ann and Otto; Otto's mail of Mo's pending confirmation is
// composed (its one-tap link issued, Otto's membership read FOR SHARE)
// while Ann removes Otto. The removal stopped Otto's handed-over links
// before it deleted his membership, the row the mail's statement holds:
// a link stored after that stop, committed before the deletion, stayed
// live, and Otto, removed, answered for the seat by it. A test
// transaction holds the seat's row, so the mail's statement waits with
// Otto's membership locked whatever the timing. Now the removal waits for
// the membership first and then stops the link (or the mail, waiting for
// the removal, issues none).
func TestHandedLinkIssuedWhileItsOwnerIsRemoved(t *testing.T) {
	handedLinkIssuedDuring(t, func(tb *teamBundle, ann, otto app.User) error {
		return tb.accounts.RemoveMember(tb.ctx, ann.ID, "alpha", otto.ID)
	})
}

// TestHandedLinkIssuedWhileTheAccountIsDeleted: the same mail, composed
// while Ann deletes the account: the deletion stops every link of its
// seats' pending confirmations, and must not leave Otto's, stored
// meanwhile, answering for a seat of the account being deleted.
func TestHandedLinkIssuedWhileTheAccountIsDeleted(t *testing.T) {
	handedLinkIssuedDuring(t, func(tb *teamBundle, ann, _ app.User) error {
		_, err := tb.rooms.DeleteAccount(tb.ctx, ann.ID, "alpha", "alpha")
		return err
	})
}

// handedLinkIssuedDuring composes Otto's handed-over mail (as
// TestHandedLinkIssuedWhileItsOwnerIsRemoved) while act runs, and checks
// that the link it may carry answers nothing.
func handedLinkIssuedDuring(t *testing.T, act func(tb *teamBundle, ann, otto app.User) error) {
	tb, ann, otto, notes, req, roomID, confID := handOver(t)
	hold := pgtest.HoldLock(t, tb.pool, `SELECT 1 FROM parties WHERE room_id = $1 AND side = 'a' FOR NO KEY UPDATE`, roomID)
	type composed struct {
		msg *jobs.Notification
		err error
	}
	mail := make(chan composed, 1)
	go func() {
		msg, err := notes.Notification(tb.ctx, jobs.Delivery{Notice: req.Notice, Channel: jobs.ChannelEmail})
		mail <- composed{msg, err}
	}()
	hold.WaitFor(1, "the mail does not wait for the held seat")
	removed := make(chan error, 1)
	go func() { removed <- act(tb, ann, otto) }()
	// The removal is done, or waits behind the mail.
	hold.WaitForOr(2, func() bool { return len(removed) > 0 }, "the removal neither done nor waiting")
	hold.Release()
	if err := <-removed; err != nil {
		t.Fatal(err)
	}
	got := <-mail
	if got.err != nil {
		if _, ok := errors.AsType[*jobs.SkipError](got.err); !ok {
			t.Fatalf("otto's request: %v", got.err)
		}
		return // not sent: no link
	}
	if got.msg.OneTapURL == "" {
		return
	}
	link := got.msg.OneTapURL[strings.LastIndex(got.msg.OneTapURL, "/")+1:]
	if d, err := tb.rooms.DecideOneTap(tb.ctx, link, "", true); err == nil {
		t.Fatalf("otto answered for mo's seat by the link mailed to him meanwhile: %s", d.Result)
	}
	h, err := tb.rooms.ForHuman(tb.ctx, ann.ID, roomID, negotiation.SideA, "")
	if err != nil || h.View.PendingConfirmation == nil || h.View.PendingConfirmation.ID != confID || !h.CanDecide {
		t.Fatalf("the room for ann: %+v %v", h, err)
	}
}
