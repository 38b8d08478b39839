package mcpserver

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestTypeScriptClient runs test/ts-client/agree.mjs, the official
// TypeScript MCP SDK as a second, independent client: it opens, joins and
// reaches agreement; this test answers the humans' confirmations.
// .ci/run installs its dependencies (npm ci); locally run that first.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "test", "ts-client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/ts-client has no node_modules: .ci/run must run npm ci there")
		}
		t.Skip("run `npm ci --prefix test/ts-client` to include the TypeScript SDK client")
	}
	e := setup(t)
	cmd := exec.Command("node", "agree.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"MCP_URL_A="+e.url+"/mcp/alpha", "KEY_A="+e.keys["a"],
		"MCP_URL_B="+e.url+"/mcp/beta", "KEY_B="+e.keys["b"])
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
	defer done.Stop()
	lines := bufio.NewScanner(stdout)
	var final map[string]string
	for lines.Scan() {
		var msg map[string]string
		if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
			t.Fatalf("%v: %s", err, lines.Text())
		}
		if side := msg["confirm"]; side != "" {
			v, err := e.rooms.Read(e.ctx, e.agents[side], msg["room_token"])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := e.rooms.DecideAsOwner(e.ctx, e.agents[side].OwnerUserID, v.RoomID, msg["id"], negotiation.SubjectHash(msg["subject_hash"]), true); err != nil {
				t.Fatal(err)
			}
			_, _ = stdin.Write([]byte("ok\n"))
			continue
		}
		final = msg
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the TypeScript client failed: %v", err)
	}
	if final["state"] != "agreed" || final["subject_hash"] == "" {
		t.Fatalf("the TypeScript client ended with %v", final)
	}
	e.check(t)
}
