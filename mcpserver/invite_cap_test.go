package mcpserver

import (
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
)

// TestInviteEmailDailyCapOverMCP: past the account's daily cap of
// invitation emails, negotiation_open with invite_email is a tool error of
// one line naming invite_email and the rule, and opens nothing; without
// invite_email it opens. Agents racing through their own connections get
// exactly the cap's worth of invitations emailed.
func TestInviteEmailDailyCapOverMCP(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *app.RoomsConfig) { c.InviteEmailDailyCap = 4 })
	schema := map[string]any{"day": map[string]any{"type": "date", "label": "Day"}}
	inviting := map[string]any{"subject_schema": schema, "invite_email": "pat@example.test"}
	rooms := func() int {
		t.Helper()
		var n int
		if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM rooms`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const rule = "invite_email: this account has had 4 invitations emailed in the last 24 hours, the most allowed; nothing was opened. " +
		"Open without invite_email and share the invite_url yourself, or try again from "

	// Eight of a's connections open at once: four get their invitation
	// emailed, four are refused.
	sessions := []*mcp.ClientSession{e.sessions["a"]}
	for range 7 {
		sessions = append(sessions, e.connect(t, "a", e.keys["a"]))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var opened int
	var refused []string
	start := make(chan struct{})
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := s.CallTool(e.ctx, &mcp.CallToolParams{Name: "negotiation_open", Arguments: inviting})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Errorf("open: %v", err)
			case res.IsError:
				refused = append(refused, res.Content[0].(*mcp.TextContent).Text)
			default:
				opened++
			}
		}()
	}
	close(start)
	wg.Wait()
	if opened != 4 || len(refused) != 4 {
		t.Fatalf("%d opened, refused %q; want 4 and 4", opened, refused)
	}
	for _, msg := range refused {
		if !strings.HasPrefix(msg, rule) || strings.Contains(msg, "\n") || len(msg) > 300 {
			t.Errorf("refusal %q", msg)
		}
	}
	var emails int
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM river_job WHERE kind = 'notify_invite'`).Scan(&emails); err != nil || emails != 4 {
		t.Fatalf("%d invitation jobs (%v), want 4", emails, err)
	}

	// At the cap: refused, nothing opened; without the email, it opens.
	before := rooms()
	if _, msg := e.call(t, "a", "negotiation_open", inviting); !strings.HasPrefix(msg, rule) {
		t.Fatalf("past the cap: %q", msg)
	}
	if rooms() != before {
		t.Fatal("a refused open opened a room")
	}
	out := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	if out["invite_url"] == "" || rooms() != before+1 {
		t.Fatalf("an open without invite_email: %v", out)
	}
	// Another account is not capped by a's invitations.
	e.must(t, "b", "negotiation_open", inviting)
	e.check(t)
}
