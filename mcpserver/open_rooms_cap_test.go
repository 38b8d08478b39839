package mcpserver

import (
	"testing"

	"github.com/taasky/taasky/app"
)

// TestOpenRoomsCapOverMCP: at the account's cap of open rooms,
// negotiation_open is a tool error the agent reads, one line naming rooms
// and the rule, and opens nothing; the other account opens.
func TestOpenRoomsCapOverMCP(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *app.RoomsConfig) { c.OpenRoomsPerAccount = 1 })
	open := map[string]any{"subject_schema": map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}}
	e.must(t, "a", "negotiation_open", open)
	rooms := func() (n int) {
		t.Helper()
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM rooms`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := rooms()
	const want = "rooms: this account has as many open rooms as it may have (1, OPEN_ROOMS_PER_ACCOUNT_MAX); nothing was opened. " +
		"Cancel one it no longer needs, or wait for one to end"
	if out, msg := e.call(t, "a", "negotiation_open", open); msg != want {
		t.Fatalf("past the cap: %v %q\nwant %q", out, msg, want)
	}
	if n := rooms(); n != before {
		t.Errorf("a refused open left %d rooms, had %d", n, before)
	}
	e.must(t, "b", "negotiation_open", open)
}
