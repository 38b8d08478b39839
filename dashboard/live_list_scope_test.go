package dashboard

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// drainedHub waits until the hub fanned out what it was told (Publish
// drains on a goroutine of its own).
func drainedHub(hub *Hub) {
	for {
		hub.mu.Lock()
		draining := hub.draining
		hub.mu.Unlock()
		if !draining {
			return
		}
		runtime.Gosched()
	}
}

// TestListOfAMemberHearsOnlyHerSeats: the rooms list of a member (user 7
// of account 3) is woken by the rooms whose seat she answers for, not by
// her colleagues' (the list shows only hers); a lead's list (user 8) by
// every room of the account. Once she left a seat (handed to nobody, as a
// removal does), heard as a change of her access, that room's changes no
// longer wake her, though the hub had kept the room's seats. Before, every
// list followed every room of its accounts: a member's stream told her
// when each colleague's room changed.
func TestListOfAMemberHearsOnlyHerSeats(t *testing.T) {
	t.Parallel()
	seats := map[int64][]app.RoomSeat{
		1: {{Account: 3, Owner: 8}, {Account: 4, Owner: 9}}, // a colleague's room
		2: {{Account: 3, Owner: 7}, {Account: 5, Owner: 9}}, // hers
	}
	hub := NewHub(func(_ context.Context, room int64) ([]app.RoomSeat, error) {
		return seats[room], nil
	}, slog.New(slog.DiscardHandler))
	member, stopMember := hub.watchList(7, nil, []int64{3})
	defer stopMember()
	lead, stopLead := hub.watchList(8, []int64{3}, nil)
	defer stopLead()
	woken := func(ch chan struct{}) bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	for round := range 2 { // the second time, from what the hub kept
		hub.Publish(1)
		drainedHub(hub)
		if woken(member) {
			t.Fatalf("round %d: the member's list was woken by a colleague's room", round)
		}
		if !woken(lead) {
			t.Fatalf("round %d: the lead's list missed a room of the account", round)
		}
		hub.Publish(2)
		drainedHub(hub)
		if !woken(member) || !woken(lead) {
			t.Fatalf("round %d: a list missed the member's room", round)
		}
	}
	seats[2] = []app.RoomSeat{{Account: 3}, {Account: 5, Owner: 9}} // her seat is nobody's now
	hub.AccessChanged(7)
	hub.Publish(2)
	drainedHub(hub)
	if woken(member) {
		t.Fatal("the member's list was woken by a room whose seat she left")
	}
	if !woken(lead) {
		t.Fatal("the lead's list missed the room")
	}
}

// TestDemotedAdminsListFollowsHerRole: Carol, an admin of alpha with a
// room of her own there, has her rooms list open; she is demoted to
// member. Her list's stream ends at once, asking the page to refresh and
// open it again; opened again, it follows her own room and no longer her
// colleagues' (it watches what a member's list shows). Before, it went on
// telling her of every change of alpha's rooms.
func TestDemotedAdminsListFollowsHerRole(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.AddMemberAsOperator(b.ctx, "alpha", b.carol.Email, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	agent, _, err := b.accounts.CreateAgent(b.ctx, "alpha", "Carol's agent", b.carol.Email)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := b.rooms.Open(b.ctx, agent, app.OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	b.rooms.Close() // the rooms' announcements sent
	alpha := b.alphaAccount.ID
	registered := func() (whole, own bool) {
		b.dash.hub.mu.Lock()
		defer b.dash.hub.mu.Unlock()
		return len(b.dash.hub.accounts[alpha]) > 0, len(b.dash.hub.owned[ownSeat{alpha, b.carol.ID}]) > 0
	}
	list := b.openLive(t, b.carol, "/events")
	if whole, own := registered(); !whole || own {
		t.Fatalf("an admin's list: follows every room of alpha %v, her own seats' %v; want every room", whole, own)
	}
	if err := b.accounts.ChangeRole(b.ctx, b.alice.ID, "alpha", b.carol.ID, app.MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	said := until(t, list, "0") // the stream's last, empty chunk
	if !strings.Contains(said, "event: change\n") || !strings.Contains(said, "retry: "+retryRenewed+"\n") {
		t.Fatalf("the list's stream did not ask to be renewed:\n%s", said)
	}
	list = b.openLive(t, b.carol, "/events")
	if whole, own := registered(); whole || !own {
		t.Fatalf("a member's list: follows every room of alpha %v, her own seats' %v; want her own", whole, own)
	}
	if _, err := b.pool.Exec(b.ctx, `SELECT pg_notify($1, $2)`, app.RoomChannel, fmt.Sprint(mine.View.RoomID)); err != nil {
		t.Fatal(err)
	}
	until(t, list, "event: change")
}
