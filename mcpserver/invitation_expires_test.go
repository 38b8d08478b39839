package mcpserver

import (
	"testing"
	"time"
)

// TestAgentsSeeWhenTheInvitationExpires: while nobody joined, the room an
// agent reads and its negotiation_list entry carry invitation_expires (72
// hours after the open, or the deadline if that comes first), not only the
// 14-day deadline; once joined, neither has it.
func TestAgentsSeeWhenTheInvitationExpires(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"n": map[string]any{"type": "int", "label": "N"}}
	// The server's clock is the harness's, stopped at its start.
	want := time.Unix(0, e.clock.Load()).Add(72 * time.Hour).UTC().Format(time.RFC3339)
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	read := e.must(t, "a", "negotiation_read", map[string]any{"room_token": open["room_token"]})["room"].(map[string]any)
	got, _ := read["invitation_expires"].(string)
	if got != want {
		t.Fatalf("negotiation_read of a draft: invitation_expires = %q, want 72 hours after the open (deadline %v)", got, read["deadline"])
	}
	entry := func(token any) map[string]any {
		t.Helper()
		rooms := e.must(t, "a", "negotiation_list", map[string]any{"room_tokens": []any{token}})["rooms"].([]any)
		return rooms[0].(map[string]any)
	}
	if l := entry(open["room_token"]); l["invitation_expires"] != got {
		t.Errorf("negotiation_list of a draft: invitation_expires = %v, want %s", l["invitation_expires"], got)
	}

	// A deadline before the invitation's end: the room lapses then.
	deadline := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	soon := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "deadline": deadline})
	if v := soon["room"].(map[string]any)["invitation_expires"]; v != deadline {
		t.Errorf("a draft whose deadline comes first: invitation_expires = %v, want the deadline %s", v, deadline)
	}
	if l := entry(soon["room_token"]); l["invitation_expires"] != deadline {
		t.Errorf("negotiation_list, the deadline first: invitation_expires = %v, want %s", l["invitation_expires"], deadline)
	}

	joined := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})
	if v, ok := joined["room"].(map[string]any)["invitation_expires"]; ok {
		t.Errorf("once joined, the room has invitation_expires %v", v)
	}
	read = e.must(t, "a", "negotiation_read", map[string]any{"room_token": open["room_token"]})["room"].(map[string]any)
	if v, ok := read["invitation_expires"]; ok {
		t.Errorf("once joined, a's room has invitation_expires %v", v)
	}
	if v, ok := entry(open["room_token"])["invitation_expires"]; ok {
		t.Errorf("once joined, the list entry has invitation_expires %v", v)
	}
}
