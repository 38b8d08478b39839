package mcpserver

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden.json")

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
	got, _ := json.MarshalIndent(res.Tools, "", "  ")
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		_ = os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./mcpserver -run TestToolsContract -update)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("the tools' public contract changed; if meant, run go test ./mcpserver -run TestToolsContract -update and review the diff")
	}
}
