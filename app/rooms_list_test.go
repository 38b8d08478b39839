package app

import (
	"testing"
)

// TestListPages: the agent's rooms come newest first, 50 a page, with a
// cursor to the next page; tokens list exactly the rooms they open.
func TestListPages(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	var tokens []string
	for range ListPage + 5 {
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "x"})
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, open.RoomToken)
	}
	page1, next, err := rb.rooms.List(rb.ctx, rb.a, nil, "")
	if err != nil || len(page1) != ListPage || next == "" {
		t.Fatalf("page 1: %d rooms, cursor %q, %v", len(page1), next, err)
	}
	if page1[0].RoomToken != tokens[len(tokens)-1] || page1[0].State != "draft" || page1[0].Title != "x" {
		t.Fatalf("newest first, with its token: %+v", page1[0])
	}
	page2, next2, err := rb.rooms.List(rb.ctx, rb.a, nil, next)
	if err != nil || len(page2) != 5 || next2 != "" || page2[4].RoomToken != tokens[0] {
		t.Fatalf("page 2: %d rooms, cursor %q, %v", len(page2), next2, err)
	}
	if _, _, err := rb.rooms.List(rb.ctx, rb.a, nil, "abc"); ErrorCodeOf(err) != ErrInvalid {
		t.Fatalf("a bad cursor: %v", err)
	}
	byToken, _, err := rb.rooms.List(rb.ctx, rb.a, tokens[:3], "")
	if err != nil || len(byToken) != 3 {
		t.Fatalf("by tokens: %v %v", byToken, err)
	}
	if _, _, err := rb.rooms.List(rb.ctx, rb.a, make([]string, MaxListTokens+1), ""); ErrorCodeOf(err) != ErrInvalid {
		t.Fatalf("too many tokens: %v", err)
	}
	if others, _, _ := rb.rooms.List(rb.ctx, rb.b, nil, ""); len(others) != 0 {
		t.Fatalf("b sees a's rooms: %d", len(others))
	}
}

// TestListKeepsBothSidesOfARoom: an agent that joined its own invitation
// (before such joins were refused: errOwnInvitation; the seat is moved to
// it here, as such a room is stored) has two entries of one room; a page
// never ends between them (the cursor is a room id), so neither side's
// token is lost.
func TestListKeepsBothSidesOfARoom(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	y, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "self"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: y.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `UPDATE parties SET account_id = $1, agent_id = $2, owner_user_id = $3 WHERE room_id = $4 AND side = 'b'`,
		rb.a.AccountID, rb.a.ID, rb.a.OwnerUserID, j.View.RoomID); err != nil {
		t.Fatal(err)
	}
	for range ListPage - 1 {
		if _, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema, Title: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	pages, cursor := 0, ""
	for ; pages < 5; pages++ {
		page, next, err := rb.rooms.List(rb.ctx, rb.a, nil, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page {
			seen[s.RoomToken]++
		}
		if cursor = next; next == "" {
			break
		}
	}
	if seen[y.RoomToken] != 1 || seen[j.RoomToken] != 1 || len(seen) != ListPage+1 || pages != 0 {
		t.Fatalf("side a seen %d, side b %d; %d entries in %d pages after the first", seen[y.RoomToken], seen[j.RoomToken], len(seen), pages)
	}
}
