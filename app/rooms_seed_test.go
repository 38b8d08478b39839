package app

import "testing"

func TestSeedRooms(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	last, err := rb.rooms.SeedRooms(rb.ctx, rb.a, rb.b, 120)
	if err != nil {
		t.Fatal(err)
	}
	v, err := rb.rooms.Read(rb.ctx, rb.a, last)
	if err != nil || v.State != "awaiting" || v.Round != 1 || v.TermsOnTable == nil {
		t.Fatalf("a seeded room reads: %v %+v", err, v)
	}
	page, _, err := rb.rooms.List(rb.ctx, rb.b, nil, "")
	if err != nil || len(page) != ListPage {
		t.Fatalf("b lists the seeded rooms: %d %v", len(page), err)
	}
	// A seeded room is a real room: it moves, and replays.
	if _, err := rb.rooms.Propose(rb.ctx, rb.b, page[0].RoomToken, MoveInput{Verdict: "counter", Subject: meeting(11, "120")}); err != nil {
		t.Fatal(err)
	}
	rb.checkClean(t)
}
