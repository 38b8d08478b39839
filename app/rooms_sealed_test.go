package app

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestSealedRoomClosesAtItsDeadline: a room whose limits were sealed under
// a SECRET_KEY the installation no longer has (it started over) is closed
// by the deadline sweep like any other, instead of failing every sweep;
// its moves are refused.
func TestSealedRoomClosesAtItsDeadline(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, _ := rb.openJoined(t, OpenInput{Limits: json.RawMessage(`{"fee":{"max":{"amount":"4321.00","currency":"EUR"}}}`)},
		`{"fee":{"min":{"amount":"1000.00","currency":"EUR"}}}`)
	due, _ := rb.openJoined(t, OpenInput{Limits: json.RawMessage(`{"fee":{"max":{"amount":"4321.00","currency":"EUR"}}}`)}, "")
	v, err := rb.rooms.Read(rb.ctx, rb.a, due)
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := time.Parse(time.RFC3339, v.Deadline)
	if err != nil {
		t.Fatal(err)
	}

	cfg := rb.cfg
	cfg.LimitsKey = bytes.Repeat([]byte{8}, 32) // the installation started over
	after, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(after.Close)
	if _, err := after.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "4000")}); ErrorCodeOf(err) != ErrConflict {
		t.Errorf("a move in the sealed room: %v, want the refusal", err)
	}
	rb.clock.Store(deadline.Add(time.Minute).UnixNano())
	n, err := after.CloseDue(rb.ctx, 10)
	if err != nil || n != 2 {
		t.Fatalf("the sweep past the deadline: %d closed, %v; want both sealed rooms closed", n, err)
	}
	l, _, err := after.List(rb.ctx, rb.a, []string{ta, due}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l {
		if s.State != "closed" || s.ClosedReason != "lapsed" {
			t.Errorf("room %d after the sweep: %s %s", s.RoomID, s.State, s.ClosedReason)
		}
	}
}

// TestSealedRoomExported: an account's export keeps a room sealed under
// the old SECRET_KEY, with its limits null and marked sealed, instead of
// failing the whole export.
func TestSealedRoomExported(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	rb.openJoined(t, OpenInput{Limits: json.RawMessage(`{"fee":{"max":{"amount":"4321.00","currency":"EUR"}}}`)}, "")
	cfg := rb.cfg
	cfg.LimitsKey = bytes.Repeat([]byte{8}, 32) // the installation started over
	after, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(after.Close)
	out, err := after.ExportAccount(rb.ctx, rb.a.OwnerUserID, "alpha")
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if len(out.Rooms) != 1 || !out.Rooms[0].LimitsSealed || string(out.Rooms[0].Limits) != "null" {
		t.Errorf("the sealed room in the export: %d rooms, sealed %v, limits %s", len(out.Rooms), out.Rooms[0].LimitsSealed, out.Rooms[0].Limits)
	}
}
