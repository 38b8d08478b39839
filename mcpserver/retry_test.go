package mcpserver

import (
	"testing"
)

// TestRetriedMovesThroughMCP: the audit's three retries, each sent after
// the room moved on, are answered with their first result as it stands
// now (DESIGN §3: a retried identical move is answered, not refused),
// while a counter re-proposing one's own terms is a new move, played.
func TestRetriedMovesThroughMCP(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	ta := open["room_token"].(string)
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	offer := map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"day": "2026-12-24"}}
	e.must(t, "a", "negotiation_propose", offer)
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": map[string]any{"day": "2026-12-25"}})

	// 1. A's offer again, after B countered: the room as it is.
	out, msg := e.call(t, "a", "negotiation_propose", offer)
	if msg != "" {
		t.Fatalf("a's retried offer: %s", msg)
	}
	if room := out["room"].(map[string]any); room["round"] != 2.0 || room["turn"] != "you" {
		t.Fatalf("a's retried offer changed the room: %v", room)
	}
	// A counter with a's first terms is legal now: played.
	out = e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "counter", "subject": map[string]any{"day": "2026-12-24"}})
	room := out["room"].(map[string]any)
	if room["round"] != 3.0 {
		t.Fatalf("a's counter with its first terms: round %v", room["round"])
	}
	hash := room["terms_on_table"].(map[string]any)["subject_hash"]
	if hash == nil {
		hash = room["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["subject_hash"]
	}

	// 2. B's approve again, after Bob confirmed it: waiting, with that
	// confirmation, applied.
	approve := map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": hash}
	first := e.must(t, "b", "negotiation_respond", approve)
	id := first["confirmation"].(map[string]any)["id"]
	e.confirm(t, "b", tb, first, true)
	out, msg = e.call(t, "b", "negotiation_respond", approve)
	if msg != "" {
		t.Fatalf("b's retried approve: %s", msg)
	}
	if c := out["confirmation"].(map[string]any); out["status"] != "waiting_for_your_human" || c["id"] != id || c["outcome"] != "applied" {
		t.Fatalf("b's retried approve: %v", out)
	}

	// 3. A's cancel again, after Alice confirmed it (the room closed).
	first = e.must(t, "a", "negotiation_cancel", map[string]any{"room_token": ta})
	id = first["confirmation"].(map[string]any)["id"]
	if c := first["confirmation"].(map[string]any); c["outcome"] != nil || c["verdict"] != "cancel" {
		t.Fatalf("a's cancel: %v", first)
	}
	e.confirm(t, "a", ta, first, true)
	out, msg = e.call(t, "a", "negotiation_cancel", map[string]any{"room_token": ta})
	if msg != "" {
		t.Fatalf("a's retried cancel: %s", msg)
	}
	if c := out["confirmation"].(map[string]any); c["id"] != id || c["outcome"] != "applied" || out["room"].(map[string]any)["state"] != "closed" {
		t.Fatalf("a's retried cancel: %v", out)
	}
	// B never cancelled: its cancel is refused.
	if _, msg := e.call(t, "b", "negotiation_cancel", map[string]any{"room_token": tb}); msg != "room is closed" {
		t.Fatalf("b's cancel of the closed room: %q", msg)
	}
	e.check(t)
}
