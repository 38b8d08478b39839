package mcpserver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInspectorPortability lists the tools with the MCP Inspector's CLI
// (test/ts-client installs @modelcontextprotocol/inspector 2.12.0) and its
// strict schema portability check: no error and no warning, so that a
// client mapping tool schemas onto a narrower dialect keeps every rule.
func TestInspectorPortability(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "test", "ts-client")
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(cli); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/ts-client has no node_modules: .ci/run must run npm ci there")
		}
		t.Skip("run `npm ci --prefix test/ts-client` to include the MCP Inspector")
	}
	e := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", cli, "--cli", e.url+"/mcp/alpha", "--transport", "http",
		"--header", "Authorization: Bearer "+e.keys["a"], "--method", "tools/list", "--strict")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	report := stderr.String()
	if err != nil || strings.Contains(report, "Warning:") || strings.Contains(report, "Error:") || strings.Contains(report, "Schema portability") {
		t.Fatalf("the Inspector: %v\n%s", err, report)
	}
	if !strings.Contains(stdout.String(), `"negotiation_read"`) {
		t.Fatalf("the Inspector listed no tools:\n%s", stdout.String())
	}
}
