package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/taasky/taasky/bench"
)

// TestOAuthTypeScriptClient connects the official TypeScript SDK's client
// OAuth (test/ts-oauth/connect.mjs) with only the MCP URL: Chromium signs
// the person in and consents, the client calls a tool, and its agent
// negotiates with a keyed agent of another account up to its human's
// confirmation. The client registers (Dynamic Client Registration), or
// names its Client ID Metadata Document, served over https, as its
// client_id.
func TestOAuthTypeScriptClient(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "test", "ts-oauth")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/ts-oauth has no node_modules: .ci/run must run npm ci there")
		}
		t.Skip("run `npm ci --prefix test/ts-oauth` to include the TypeScript SDK client")
	}
	t.Run("registered", func(t *testing.T) {
		t.Parallel()
		s := newOAuthStack(t)
		authURL := connectTypeScript(t, s, dir)
		if id := authURL.Query().Get("client_id"); !strings.HasPrefix(id, "tsc_") {
			t.Errorf("client_id %q: want one Taasky registered", id)
		}
	})
	t.Run("metadata document", func(t *testing.T) {
		t.Parallel()
		s := newOAuthStack(t)
		var fetched atomic.Int32
		var docURL string
		doc := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fetched.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "max-age=600")
			_ = json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "Metadata Document Assistant",
				"redirect_uris": []string{s.callback}, "grant_types": []string{"authorization_code", "refresh_token"},
				"response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
		}))
		docURL = doc.URL + "/oauth/client.json"
		s.consented = func() {
			if txt := s.text("main"); !strings.Contains(txt, "Metadata Document Assistant") {
				t.Errorf("the consent screen does not name the document's client:\n%s", txt)
			}
			// The document and the redirect are on one host: new, no more.
			s.wantWarnings("127.0.0.1", "new")
		}
		authURL := connectTypeScript(t, s, dir, docURL)
		if id := authURL.Query().Get("client_id"); id != docURL {
			t.Errorf("client_id %q: want the metadata document's URL %q", id, docURL)
		}
		if fetched.Load() == 0 {
			t.Error("Taasky never fetched the client's metadata document")
		}
	})
}

// connectTypeScript runs connect.mjs against s's /mcp (args: its client
// metadata URL, if any), consents as bob, and checks that the client
// listed the tools and called one, and that its agent's approval of the
// offer alice's keyed agent opened a room with waits for bob; it returns
// the authorization URL the client opened.
func connectTypeScript(t *testing.T, s *oauthStack, dir string, args ...string) *url.URL {
	t.Helper()
	if len(s.devAgents) != 2 || !strings.HasSuffix(s.devAgents[0][1], "/mcp/demo-a") {
		t.Fatalf("taasky dev printed the demo agents %v", s.devAgents)
	}
	ctx := t.Context()
	alice, err := bench.Connect(ctx, s.devAgents[0][1], s.devAgents[0][2], http.DefaultTransport, &bench.Latencies{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer alice.Close()
	var open struct {
		RoomToken string `json:"room_token"`
		InviteURL string `json:"invite_url"`
	}
	if err := alice.Call(ctx, "negotiation_open", map[string]any{"title": "OAuth TypeScript test",
		"subject_schema": map[string]any{"place": map[string]any{"type": "string", "label": "Where"}},
		"subject":        map[string]any{"place": "Café Einstein"}}, &open); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{"connect.mjs", s.base + "/mcp", s.callback, open.InviteURL}, args...)...)
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var seen []string
	var authURL *url.URL
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		seen = append(seen, line)
		if u, ok := strings.CutPrefix(line, "AUTHORIZE "); ok {
			var err error
			if authURL, err = url.Parse(u); err != nil {
				t.Fatal(err)
			}
			q := s.consent(u, "bob@example.test", "approve")
			if q.Get("code") == "" {
				t.Fatalf("no code: %v", q)
			}
			if _, err := io.WriteString(stdin, q.Get("code")+"\n"); err != nil {
				t.Fatal(err)
			}
		}
		if strings.HasPrefix(line, "RESPONDED ") {
			break
		}
	}
	out := strings.Join(seen, "\n")
	if authURL == nil || !strings.Contains(out, "TOOLS 7") || !strings.Contains(out, "CALLED negotiation_list") || !strings.Contains(out, "REFRESH yes") {
		t.Fatalf("the TypeScript client said:\n%s\n%s", out, stderr.String())
	}
	// Its approval of alice's offer is a request to bob, for that offer's
	// hash; alice's agent sees no approval from the other side yet.
	var status, pending, offered string
	if _, err := fmt.Sscanf(seen[len(seen)-1], "RESPONDED %s %s %s", &status, &pending, &offered); err != nil ||
		status != "waiting_for_your_human" || pending != offered || !strings.HasPrefix(offered, "sha256:") {
		t.Fatalf("the TypeScript agent's approval: %q (%v)\n%s", seen[len(seen)-1], err, stderr.String())
	}
	var read struct {
		Room struct {
			State     string            `json:"state"`
			Approvals map[string]string `json:"approvals"`
		} `json:"room"`
	}
	if err := alice.Call(ctx, "negotiation_read", map[string]any{"room_token": open.RoomToken}, &read); err != nil {
		t.Fatal(err)
	}
	if read.Room.State != "awaiting" || read.Room.Approvals["them"] != "" {
		t.Errorf("before bob confirms, alice's agent reads the room as %+v", read.Room)
	}
	if s.screens != 2 {
		t.Errorf("the person saw %d screens, want 2 (sign in, consent)", s.screens)
	}
	return authURL
}
