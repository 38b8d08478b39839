package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolListBudget is the tool list's budget, as a client receives it
// (tools/list's result, compact JSON): a model reads it at every session.
// 10 KiB, and 128 bytes more since invitation_expires (the room's and the
// list entries': 56 bytes) took it past 10 KiB: the moment a draft closes
// is worth more to an agent than those bytes, and no description word
// could go without a loss. 32 more since the room's undelivered (31
// bytes): an invitation or request the mail server refused is what an
// agent otherwise waits on until the deadline.
const toolListBudget = 10<<10 + 160

// TestToolListSize holds the tool list within its budget and reports its
// size in bytes and (≈ 4 bytes a token) tokens, tool by tool.
func TestToolListSize(t *testing.T) {
	s := New(nil, "test")
	var tools []*mcp.Tool
	for _, tl := range s.tools() {
		tools = append(tools, tl.def)
	}
	b, err := json.Marshal(&mcp.ListToolsResult{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		one, _ := json.Marshal(tl)
		d, _ := json.Marshal(tl.Description)
		t.Logf("%-20s %5d bytes (description %4d, input %4d, output %4d)", tl.Name, len(one), len(d), len(tl.InputSchema.(json.RawMessage)), len(tl.OutputSchema.(json.RawMessage)))
	}
	t.Logf("tool list: %d bytes, ≈ %d tokens", len(b), len(b)/4)
	if len(b) > toolListBudget {
		t.Errorf("the tool list is %d bytes; its budget is %d", len(b), toolListBudget)
	}
}
