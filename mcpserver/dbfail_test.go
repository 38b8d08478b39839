package mcpserver

import (
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestToolCallsWhenTheDatabaseFails: with the database gone (every
// connection ended, none accepted) or too slow (the rooms' tables locked
// past the operator's statement_timeout), a move, a read and a list are
// each a tool error telling the agent to retry the same call
// (app.RetryMessage), never "internal error"; nothing is stored; once the
// database answers the same move goes through.
func TestToolCallsWhenTheDatabaseFails(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"outage", "statement timeout"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			e := setup(t)
			schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
			open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
			ta := open["room_token"].(string)
			tb := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema})["room_token"].(string)
			e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"day": "2026-12-24"}})
			before := e.snapshot(t)
			move := map[string]any{"room_token": tb, "verdict": "counter", "subject": map[string]any{"day": "2026-12-25"}}
			var back func()
			if fault == "outage" {
				back = pgtest.Outage(t, e.pool)
			} else {
				back = pgtest.HoldLock(t, e.pool, `LOCK TABLE rooms, parties IN ACCESS EXCLUSIVE MODE`).Release
				pgtest.StatementTimeout(t, e.pool, 200*time.Millisecond)
			}
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"negotiation_propose", move},
				{"negotiation_read", map[string]any{"room_token": tb}},
				{"negotiation_list", map[string]any{}},
			} {
				if _, msg := e.call(t, "b", c.tool, c.args); msg != app.RetryMessage {
					t.Errorf("%s with the database failing: %q, want the retry message", c.tool, msg)
				}
			}
			back()
			if after := e.snapshot(t); after != before {
				t.Errorf("a failed move changed what is stored:\n%s\nwas\n%s", after, before)
			}
			e.must(t, "b", "negotiation_propose", move)
		})
	}
}
