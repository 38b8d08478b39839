package app

import (
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestJoinOwnInvitationIsRefused: an agent of the opener's human (the
// opener's own agent, another agent of that human in the account, or one
// in another account of theirs) cannot take the room's other side and
// agree with itself. The join is refused naming invite, changes nothing,
// and the invitation is still there for the real invitee.
func TestJoinOwnInvitationIsRefused(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx, acc := rb.ctx, rb.acc
	// alpha's human also owns a second agent in alpha, and one in beta.
	second, _, err := acc.CreateAgent(ctx, "alpha", "second", "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.AddMemberAsOperator(ctx, "beta", "alpha@example.test", MemberRole("member")); err != nil {
		t.Fatal(err)
	}
	elsewhere, _, err := acc.CreateAgent(ctx, "beta", "alpha's in beta", "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	open, err := rb.rooms.Open(ctx, rb.a, OpenInput{Schema: meetingSchema, Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	const want = "invite: this is an invitation to your own room; send invite_url to the other side (use negotiation_open to start your own)"
	for name, ag := range map[string]Agent{"the opener's agent": rb.a, "another agent of the human": second, "the human's agent in another account": elsewhere} {
		for _, code := range []string{open.InviteCode, open.InviteURL} {
			_, err := rb.rooms.Join(ctx, ag, JoinInput{InviteCode: code, Schema: meetingSchema})
			if err == nil || err.Error() != want || ErrorCodeOf(err) != ErrConflict {
				t.Fatalf("%s joined its own invitation: %v", name, err)
			}
		}
	}
	v, err := rb.rooms.Read(ctx, rb.a, open.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	if v.State != negotiation.StateDraft {
		t.Fatalf("after the refused joins the room is %s, want draft", v.State)
	}
	// The real invitee still joins.
	j, err := rb.rooms.Join(ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatalf("the invitee after the refused joins: %v", err)
	}
	if j.View.State != negotiation.StateAwaiting {
		t.Fatalf("joined room is %s", j.View.State)
	}
	rb.checkClean(t)
}
