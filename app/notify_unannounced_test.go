package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestUnannouncedRequest: a human whose settings send no message for a
// request (email requests off, no device) is asked by nobody, so their
// agent is told to tell them, through the request's answer and every read;
// the same human with a device is told by push, and their agent hears
// "they were notified". A preapproval at open is recorded the same way.
func TestUnannouncedRequest(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	acc := NewAccounts(nb.pool)
	ub, err := acc.UserByEmail(nb.ctx, "beta@example.test")
	if err != nil {
		t.Fatal(err)
	}
	off := DefaultNotifyPrefs
	off.EmailRequests = false
	if err := nb.svc.SetPrefs(nb.ctx, ub.ID, off); err != nil {
		t.Fatal(err)
	}
	const told = "Do not ask them again; they were notified."
	const untold = "Taasky sent them no message about it (their notification settings send none): tell them to open Taasky to confirm."

	_, tb, v := nb.offerWithLimits(t, "Silent")
	hash := v.TermsOnTable.Options[0].SubjectHash
	cv, view, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "approve", hash)
	if err != nil {
		t.Fatal(err)
	}
	if !cv.NotNotified || !view.PendingConfirmation.NotNotified || !strings.Contains(view.Next.Say, untold) {
		t.Fatalf("no channel, yet: confirmation %+v, next %q", cv, view.Next.Say)
	}
	read, err := nb.rooms.Read(nb.ctx, nb.b, tb)
	if err != nil {
		t.Fatal(err)
	}
	if !read.PendingConfirmation.NotNotified || !strings.Contains(read.Next.Say, untold) {
		t.Errorf("a read says otherwise: %+v %q", read.PendingConfirmation, read.Next.Say)
	}
	if b, _ := json.Marshal(read.PendingConfirmation); !strings.Contains(string(b), `"not_notified":true`) {
		t.Errorf("the view's confirmation: %s", b)
	}
	nb.settle(t)
	if log := nb.log(t, "beta@example.test"); len(log) != 0 {
		t.Errorf("a message was queued after all: %+v", log)
	}

	// A device: the next request is pushed, and said to be.
	nb.subscribe(t, "beta@example.test", "Beta's phone")
	_, view, err = nb.rooms.RequestConfirmation(nb.ctx, nb.b, tb, "reject", "")
	if err != nil {
		t.Fatal(err)
	}
	if view.PendingConfirmation.NotNotified || !strings.Contains(view.Next.Say, told) {
		t.Errorf("with a device: %+v %q", view.PendingConfirmation, view.Next.Say)
	}
	nb.settle(t)
	if log := nb.log(t, "beta@example.test"); len(log) != 1 || log[0].Channel != "push" {
		t.Errorf("the pushed request's log: %+v", log)
	}

	// A preapproval at open, for a human who turned every request off.
	ua, err := acc.UserByEmail(nb.ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	off.PushRequests = false
	if err := nb.svc.SetPrefs(nb.ctx, ua.ID, off); err != nil {
		t.Fatal(err)
	}
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Preapprove: true, Slots: []json.RawMessage{
		json.RawMessage(`{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"}`),
		json.RawMessage(`{"start":"2026-12-03T15:00:00Z","end":"2026-12-03T15:30:00Z"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if p := open.View.PendingConfirmation; p == nil || p.Verdict != negotiation.VerdictPreapprove || !p.NotNotified ||
		!strings.Contains(open.View.Next.Say, untold) {
		t.Errorf("the preapproval: %+v %q", p, open.View.Next.Say)
	}
}
