package bench

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestSeedRooms: seeded rooms are real rooms: their tokens read them, the
// lists page through them, they move, and they replay.
func TestSeedRooms(t *testing.T) {
	t.Parallel()
	s := newService(t)
	a, b := s.agents[0], s.agents[1]
	last, err := SeedRooms(s.ctx, s.pool, s.rooms.NewSeatSecrets, a, b, 120)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.rooms.Read(s.ctx, a, last)
	if err != nil || v.State != "awaiting" || v.Round != 1 || v.TermsOnTable == nil {
		t.Fatalf("a seeded room reads: %v %+v", err, v)
	}
	page, _, err := s.rooms.List(s.ctx, b, nil, "")
	if err != nil || len(page) != app.ListPage {
		t.Fatalf("b lists the seeded rooms: %d %v", len(page), err)
	}
	// A seeded room is a real room: it moves, and replays.
	start := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Hour)
	counter := json.RawMessage(`{"meeting_time":{"start":"` + start.Format(time.RFC3339) + `","end":"` +
		start.Add(30*time.Minute).Format(time.RFC3339) + `"},"fee":{"amount":"120","currency":"EUR"}}`)
	if _, err := s.rooms.Propose(s.ctx, b, page[0].RoomToken, app.MoveInput{Verdict: "counter", Subject: counter}); err != nil {
		t.Fatal(err)
	}
	s.check(t, 120)

	// Rooms seeded to fall due lapse at their deadlines through the sweep.
	soon := time.Now().Add(time.Second).UTC().Truncate(time.Millisecond)
	if err := SeedDue(s.ctx, s.pool, s.rooms.NewSeatSecrets, a, b, []time.Time{soon, soon.Add(time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.rooms.CloseDue(s.ctx, 10); err != nil || n != 0 {
		t.Fatalf("before their deadlines the sweep closed %d (%v)", n, err)
	}
	time.Sleep(time.Until(soon.Add(1100 * time.Millisecond)))
	if n, err := s.rooms.CloseDue(s.ctx, 10); err != nil || n != 2 {
		t.Fatalf("after their deadlines the sweep closed %d (%v), want 2", n, err)
	}
	s.check(t, 122)
}
