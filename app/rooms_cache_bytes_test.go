package app

import (
	"encoding/json"
	"runtime"
	"testing"
)

// TestCachesBoundedInBytes: the caches of a process (decoded log entries,
// kept views, parsed schemas) are held to a number of bytes, not only of
// entries. Bounded by entries alone, moves of the largest terms (three
// options of about 245 KB each) in a few dozen rooms filled them with
// hundreds of megabytes that stayed (the entries' bound was 100,000 log
// entries and 8,192 views: tens of gigabytes of such terms), so one agent
// tabling large terms grew the process without end.
func TestCachesBoundedInBytes(t *testing.T) {
	rb := setupRooms(t)
	schema := maxSchema()
	const rooms, moves = 24, 3
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range rooms {
		agents, tokens := [2]Agent{rb.a, rb.b}, rb.openJoinedOn(t, schema)
		for n := range moves {
			in := MoveInput{Verdict: "counter", Options: []json.RawMessage{maxTerms(), maxTerms(), maxTerms()}}
			if n == 0 {
				in.Verdict = "offer"
			}
			if _, err := rb.rooms.Propose(rb.ctx, agents[n%2], tokens[n%2], in); err != nil {
				t.Fatalf("move %d: %v", n, err)
			}
			// Both sides read the room: each side's view is kept.
			for side := range 2 {
				if _, err := rb.rooms.Read(rb.ctx, agents[side], tokens[side]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := rb.rooms.ReadHistory(rb.ctx, rb.a, tokens[0]); err != nil {
			t.Fatal(err)
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, c := range []struct {
		name        string
		cost, bound int
	}{
		{"log entries", rb.rooms.logCache.c.Cost(), 2 * logCacheBytes},
		{"views", rb.rooms.views.Cost(), 2 * viewsBytes},
		{"schemas", rb.rooms.schemas.c.Cost(), 2 * schemasBytes},
	} {
		if c.cost > c.bound {
			t.Errorf("the %s kept cost %d bytes, more than their bound of %d", c.name, c.cost, c.bound)
		}
	}
	// What the process holds after the load, measured apart from the
	// caches' own reckoning: their bounds and 32 MB for the rest (the
	// pool's buffers, the test's own). Without bounds in bytes it was
	// some 400 MB here.
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if bound := int64(2*(logCacheBytes+viewsBytes+schemasBytes) + 32<<20); grown > bound {
		t.Errorf("the heap grew by %d MB over %d rooms of the largest terms, more than the caches' bounds and 32 MB (%d MB)", grown>>20, rooms, bound>>20)
	}
	t.Logf("heap grown by %d MB; kept: log entries %d (%d MB), views %d (%d MB), schemas %d", grown>>20,
		rb.rooms.logCache.c.Len(), rb.rooms.logCache.c.Cost()>>20, rb.rooms.views.Len(), rb.rooms.views.Cost()>>20, rb.rooms.schemas.c.Len())
}

// TestViewsBoundedWhenReplaced: a room's view is kept by its room token
// and replaced at each read after a move. Read while they were small (the
// rooms opened and joined), then again after an offer of the largest
// terms, the views were replaced in the current generation with no
// reckoning against its budget: 12 rooms held some 100 MB of views past
// their bound of two generations (64 MB), and 4,096 rooms (the entries'
// bound) some 18 GB.
func TestViewsBoundedWhenReplaced(t *testing.T) {
	rb := setupRooms(t)
	schema := maxSchema()
	const rooms = 12
	agents := [2]Agent{rb.a, rb.b}
	tokens := make([][2]string, rooms)
	for i := range rooms {
		tokens[i] = rb.openJoinedOn(t, schema)
		for side := range 2 { // small views, kept
			if _, err := rb.rooms.Read(rb.ctx, agents[side], tokens[i][side]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := range rooms {
		in := MoveInput{Verdict: "offer", Options: []json.RawMessage{maxTerms(), maxTerms(), maxTerms()}}
		if _, err := rb.rooms.Propose(rb.ctx, rb.a, tokens[i][0], in); err != nil {
			t.Fatal(err)
		}
		for side := range 2 { // the same keys, views of the largest terms
			if _, err := rb.rooms.Read(rb.ctx, agents[side], tokens[i][side]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cost := rb.rooms.views.Cost(); cost > 2*viewsBytes {
		t.Errorf("the views kept cost %d MB (%d views), more than their bound of %d MB", cost>>20, rb.rooms.views.Len(), 2*viewsBytes>>20)
	}
}

// openJoinedOn has a open a room of schema and b join it on the same one:
// their room tokens.
func (rb *roomsBundle) openJoinedOn(t *testing.T, schema json.RawMessage) [2]string {
	t.Helper()
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	joined, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	return [2]string{open.RoomToken, joined.RoomToken}
}
