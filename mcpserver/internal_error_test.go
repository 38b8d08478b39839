package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/metricstest"
)

// TestInternalErrorLogged: a call the service cannot answer (its table is
// gone) is answered "internal error", logged with the tool, account, agent
// and error, and counted; the log holds none of the call's secrets (the
// agent key, the room token, the limits).
func TestInternalErrorLogged(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"fee": map[string]any{"type": "int", "label": "Fee"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "limits": map[string]any{"fee": map[string]any{"max": 4321}}})
	token := open["room_token"].(string)
	if _, err := e.pool.Exec(e.ctx, `ALTER TABLE rooms RENAME TO rooms_gone`); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"negotiation_open", map[string]any{"subject_schema": schema, "limits": map[string]any{"fee": map[string]any{"max": 8765}}}},
		{"negotiation_read", map[string]any{"room_token": token}},
	}
	for _, c := range calls {
		if _, msg := e.call(t, "a", c.tool, c.args); msg != "internal error" {
			t.Errorf("%s without its table: answered %q, want \"internal error\"", c.tool, msg)
		}
	}

	logs := e.logs.String()
	for _, c := range calls {
		var found bool
		for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
			var rec struct {
				Level, Msg, Tool, Account, Err string
				AgentID                        int64 `json:"agent_id"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			if rec.Tool != c.tool {
				continue
			}
			found = true
			if rec.Level != "ERROR" || rec.Msg != "tool call failed" || rec.Account != "alpha" || rec.AgentID != e.agents["a"].ID ||
				!strings.Contains(rec.Err, `"rooms"`) {
				t.Errorf("%s logged as %s", c.tool, line)
			}
		}
		if !found {
			t.Errorf("%s's internal error is not logged:\n%s", c.tool, logs)
		}
	}
	for _, secret := range []string{token, e.keys["a"], "8765", "4321"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the log holds %q:\n%s", secret, logs)
		}
	}

	m := metricstest.Scrape(t, e.url+"/metrics")
	for tool, want := range map[string]float64{"negotiation_open": 1, "negotiation_read": 1, "negotiation_list": 0} {
		if got := m.Get(t, "taasky_mcp_calls_total", "tool", tool, "outcome", "internal_error"); got != want {
			t.Errorf("%s internal errors counted: %v, want %v", tool, got, want)
		}
	}
}
