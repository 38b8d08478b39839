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

// for_your_human is in the human's language (their setting), also when
// the room did not move since the agent's last read: the kept view is
// the human's in one language only.
func TestForYourHumanInTheirLanguage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.agents["b"].OwnerUserID
	if err := e.accounts.SetUserLanguage(e.ctx, b, "de"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"fee": map[string]any{"type": "int", "label": "Fee"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": map[string]any{"fee": 100}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	read := func() string {
		return e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	}
	if human := read(); !strings.Contains(human, "Frist:") || !strings.Contains(human, "Von der anderen Seite vorgeschlagene Bedingungen:") {
		t.Errorf("b's human (de) is told:\n%s", human)
	}
	if err := e.accounts.SetUserLanguage(e.ctx, b, "fr"); err != nil {
		t.Fatal(err)
	}
	if human := read(); !strings.Contains(human, "Échéance :") {
		t.Errorf("b's human (now fr), with no move since the last read, is told:\n%s", human)
	}
	if mine := open["room"].(map[string]any)["for_your_human"].(string); !strings.Contains(mine, "Deadline:") {
		t.Errorf("a's human (no language set) is told:\n%s", mine)
	}
}
