package mcpserver

import (
	"strings"
	"testing"
)

// for_your_human writes moments in the human's IANA time zone, named.
func TestForYourHumanInTheirZone(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.accounts.SetUserTimeZone(e.ctx, e.agents["b"].OwnerUserID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T09:00:00Z", "end": "2026-12-03T09:30:00Z"}}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "10:00") || !strings.Contains(human, "Europe/Paris") {
		t.Errorf("b's human (Europe/Paris) is told:\n%s", human)
	}
	mine := open["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(mine, "(UTC)") {
		t.Errorf("a's human (no zone set) is told:\n%s", mine)
	}
}
