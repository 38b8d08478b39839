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
