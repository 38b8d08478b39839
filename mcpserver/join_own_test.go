package mcpserver

import (
	"testing"
)

const ownInvitation = "invite: this is an invitation to your own room; send invite_url to the other side (use negotiation_open to start your own)"

// TestJoinOwnInvitation: through MCP, the opener's agent cannot join its
// own invitation and agree with itself; the refusal changes nothing, the
// real invitee joins after it, and anyone else is then told the
// invitation was used (seed 001).
func TestJoinOwnInvitation(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": map[string]any{"day": "2026-12-24"}})
	before := e.snapshot(t)
	for _, args := range []map[string]any{
		{"invite": open["invite_code"], "subject_schema": schema},
		{"invite": open["invite_url"], "subject_schema": schema},
		{"invite_url": open["invite_url"]},
	} {
		if out, msg := e.call(t, "a", "negotiation_join", args); msg != ownInvitation {
			t.Fatalf("a joined its own invitation: %q %v", msg, out)
		}
	}
	if after := e.snapshot(t); after != before {
		t.Fatalf("a refused join changed the store:\n%s\n%s", before, after)
	}
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_url"], "subject_schema": schema})
	if room := join["room"].(map[string]any); room["state"] != "awaiting" || room["turn"] != "you" {
		t.Fatalf("the invitee's room: %v", room)
	}
	// Now used: the opener hears it is their own, b's retried join is its seat.
	if _, msg := e.call(t, "a", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema}); msg != ownInvitation {
		t.Fatalf("a's join of its used invitation: %q", msg)
	}
	if again := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema}); again["room_token"] != join["room_token"] {
		t.Fatal("b's retried join is not its seat")
	}
	e.check(t)
}
