package mcpserver

import (
	"strings"
	"testing"
)

// A room opened with slots has a schema Taasky wrote: its field is named
// in the human's language, not as a party's words (the structured view
// names fields by key and holds no label). An ordinary schema's label is
// shown as its party wrote it.
func TestForYourHumanNamesTheSlotsFieldInTheirLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lang, want string }{
		{"ja", "- 打ち合わせの日時："},
		{"de", "- Termin: "},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			if err := e.accounts.SetUserLanguage(e.ctx, e.agents["b"].OwnerUserID, c.lang); err != nil {
				t.Fatal(err)
			}
			slots := []map[string]string{{"start": "2026-12-10T09:00:00Z", "end": "2026-12-10T09:30:00Z"}}
			open := e.must(t, "a", "negotiation_open", map[string]any{"slots": slots})
			room := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"]})["room"].(map[string]any)
			human := room["for_your_human"].(string)
			if !strings.Contains(human, c.want) || strings.Contains(human, "Meeting time") {
				t.Errorf("b's human (%s) is told:\n%s", c.lang, human)
			}
		})
	}
	e := setup(t)
	if err := e.accounts.SetUserLanguage(e.ctx, e.agents["b"].OwnerUserID, "ja"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Coffee at Lina's"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-10T09:00:00Z", "end": "2026-12-10T09:30:00Z"}}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "- Coffee at Lina's：") || strings.Contains(human, "打ち合わせの日時") {
		t.Errorf("an ordinary schema's label is shown as written; b's human (ja) is told:\n%s", human)
	}
}
