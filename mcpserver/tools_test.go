package mcpserver

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/internal/golden"
)

// TestToolsContract snapshots what an agent sees of the tools: names,
// titles, descriptions, input and output schemas. A change to the public
// contract shows in review as a change to the golden file.
func TestToolsContract(t *testing.T) {
	t.Parallel()
	e := setup(t)
	res, err := e.sessions["a"].ListTools(e.ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 7 {
		t.Fatalf("%d tools, want 7", len(res.Tools))
	}
	for _, tool := range res.Tools {
		if n := len(strings.Fields(tool.Description)); n > 250 {
			t.Errorf("%s: description of %d words; at most about 250", tool.Name, n)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
	}
	golden.JSON(t, "tools.golden.json", res.Tools)
}
