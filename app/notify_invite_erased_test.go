package app

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/taasky/taasky/jobs"
)

// TestInvitationToAnErasedAddress: an invitation mail still queued when
// its address is erased (a person deleting their profile forgets it in
// the rooms invited by it) is not sent, and says why; another address's
// invitation is.
func TestInvitationToAnErasedAddress(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t) // River inserts, no worker runs: the mails stay queued
	n, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	queued := func(to string) jobs.InviteArgs {
		t.Helper()
		if _, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, InviteEmail: to}); err != nil {
			t.Fatal(err)
		}
		var raw []byte
		if err := rb.pool.QueryRow(rb.ctx, `SELECT args FROM river_job WHERE kind = $1 AND args->>'to' = $2`,
			jobs.InviteArgs{}.Kind(), to).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var a jobs.InviteArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	pat, sam := queued("pat@example.test"), queued("sam@example.test")
	if err := forgetAddresses(rb.ctx, rb.pool, []string{"pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Invitation(rb.ctx, jobs.Delivery{}, pat); err == nil || err.Error() != (&jobs.SkipError{Reason: "the address was erased"}).Error() {
		t.Errorf("the erased address's invitation: %v, want it skipped", err)
	}
	if out, err := n.Invitation(rb.ctx, jobs.Delivery{}, sam); err != nil || out.To != "sam@example.test" {
		t.Errorf("another address's invitation: %+v, %v", out, err)
	}
}

// TestErasureForgetsAQueuedInvitationsAddress: an invitation mail still
// queued when its address is erased kept the address in its job's
// arguments, and, skipped when it ran, a day longer in River's finished
// job (the erasure forgot only finished jobs' addresses). The erasure
// forgets it in the queued job too, and the job, run without it, is
// skipped for that reason.
func TestErasureForgetsAQueuedInvitationsAddress(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t) // River inserts, no worker runs: the mail stays queued
	n, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: rb.rooms.baseURL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, InviteEmail: "pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	if err := forgetAddresses(rb.ctx, rb.pool, []string{"Pat@example.test"}); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	var state string
	if err := rb.pool.QueryRow(rb.ctx, `SELECT args, state FROM river_job WHERE kind = $1`, jobs.InviteArgs{}.Kind()).Scan(&raw, &state); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(raw), []byte("pat@example.test")) {
		t.Fatalf("the queued (%s) invitation job's arguments keep the erased address: %s", state, raw)
	}
	var a jobs.InviteArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Invitation(rb.ctx, jobs.Delivery{}, a); err == nil || err.Error() != (&jobs.SkipError{Reason: "the address was erased"}).Error() {
		t.Errorf("the job run without its address: %v, want it skipped", err)
	}
}
