package app

import (
	"encoding/json"
	"testing"
)

// TestRotateSecretKeyReachesFinishedJobs: River keeps finished jobs with
// their arguments (completed and cancelled a day, discarded a week), and
// an invitation's code or a member invitation's link in one still works
// after its mail went. After the rotation, neither opens under the old key
// any more (whoever knew it and copies the database must not read them),
// and both open under the new one.
func TestRotateSecretKeyReachesFinishedJobs(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	if err := CheckSecretKey(ctx, rb.pool, checkA, nil); err != nil {
		t.Fatal(err)
	}
	opened, err := rb.rooms.Open(ctx, rb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(`{}`), InviteEmail: "guest@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rb.acc.UseTeams(TeamsConfig{River: rb.rooms.river, SealKey: invitesA, BaseURL: rb.rooms.baseURL, RoomTokenKey: tokenA}); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.acc.Invite(ctx, rb.a.OwnerUserID, "alpha", "colleague@example.test", MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	// Both mails went: their jobs completed (the invitation is still open).
	if _, err := rb.pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE kind IN ('notify_invite', 'member_invite')`); err != nil {
		t.Fatal(err)
	}
	keys := SecretKeys{Limits: limitsB, PreviousLimits: limitsA, Token: tokenB, PreviousToken: tokenA,
		MemberInvites: invitesB, PreviousMemberInvites: invitesA, KeyCheck: checkB, PreviousKeyCheck: checkA, ReceiptMAC: macB, PreviousReceiptMAC: macA}
	if _, err := RotateSecretKey(ctx, rb.pool, keys, 500, nil); err != nil {
		t.Fatal(err)
	}
	code, err := jobArg(t, rb, "notify_invite", "code")
	if err != nil {
		t.Fatal(err)
	}
	room := jobRoomID(t, rb)
	c, err := roomsUnder(t, rb, limitsA, tokenA, nil, nil, nil).openInviteCode(room, code)
	if err == nil {
		t.Errorf("the code in a completed job still opens under the old key (%v)", c == opened.InviteCode)
	}
	if c, err := roomsUnder(t, rb, limitsB, tokenB, nil, nil, nil).openInviteCode(room, code); err != nil || c != opened.InviteCode {
		t.Errorf("the code in a completed job under the new key: %v", err)
	}
	link, err := jobArg(t, rb, "member_invite", "token")
	if err != nil {
		t.Fatal(err)
	}
	var inv int64
	if err := rb.pool.QueryRow(ctx, `SELECT (args->>'invitation_id')::bigint FROM river_job WHERE kind = 'member_invite'`).Scan(&inv); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		key  []byte
		want bool
	}{{invitesA, false}, {invitesB, true}} {
		sk, err := newSealKeys(k.key, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := unseal(sk, link, memberInviteAD(inv)); (err == nil) != k.want {
			t.Errorf("a member invitation's link in a completed job opens under the key %d: %v, want %v", k.key[0], err == nil, k.want)
		}
	}
}
