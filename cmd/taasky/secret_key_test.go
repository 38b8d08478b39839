package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestSecretKeyRotate: the operator's rotation of SECRET_KEY through the
// binary's doors. Under key A: a room opened and joined with limits over
// MCP, and a receipt of another room agreed. `serve` with B and A as
// SECRET_KEY_PREVIOUS: the agents read and move with A's tokens, their
// limits open, and the receipt verifies at its JWKS. `taasky secret-key
// rotate` seals everything again under B (a second run changes nothing)
// and A's tokens still work. Then `serve` with B alone: a process with A
// alone is refused, A's tokens no longer work, the agents' new tokens
// (negotiation_list) read and move the room, its limits still open, and
// the receipt signed under A still verifies at the JWKS.
func TestSecretKeyRotate(t *testing.T) {
	t.Parallel()
	keyA, keyB := testSecret, "the-new-secret-key-of-this-installation"
	eA := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "LISTEN_ADDR": "127.0.0.1:0",
		"SECRET_KEY": keyA, "OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret"}
	with := func(key, previous string) env {
		e := maps.Clone(eA)
		e["SECRET_KEY"], e["SECRET_KEY_PREVIOUS"] = key, previous
		return e
	}
	// acme and globex, each with an agent (acmeServer, agreedReceipt), and
	// each an agent with a key for MCP.
	srvA, bot := acmeServer(t, eA)
	jws := agreedReceipt(t, srvA, bot)
	srvA.close()
	receiptFile := filepath.Join(t.TempDir(), "receipt.jws")
	if err := os.WriteFile(receiptFile, []byte(jws), 0o600); err != nil {
		t.Fatal(err)
	}
	keyOf := func(account, email string) string {
		t.Helper()
		out, _, err := runCmd(t, eA, "agent", "create", "--account", account, "--name", "mcp", "--owner-email", email, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var a struct{ Key string }
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		return a.Key
	}
	acmeKey, globexKey := keyOf("acme", "a@example.test"), keyOf("globex", "b@example.test")

	type agentSession struct{ *mcp.ClientSession }
	connect := func(p *process, account, key string) agentSession {
		t.Helper()
		s, err := mcp.NewClient(&mcp.Implementation{Name: "rotation-test", Version: "1"}, nil).Connect(t.Context(),
			&mcp.StreamableClientTransport{Endpoint: "http://" + p.addr + "/mcp/" + account,
				HTTPClient: &http.Client{Transport: bearer(key), Timeout: 20 * time.Second}, DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return agentSession{s}
	}
	call := func(s agentSession, tool string, args map[string]any) (map[string]any, string) {
		t.Helper()
		res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.IsError {
			return nil, res.Content[0].(*mcp.TextContent).Text
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return out, ""
	}
	must := func(s agentSession, tool string, args map[string]any) map[string]any {
		t.Helper()
		out, refused := call(s, tool, args)
		if refused != "" {
			t.Fatalf("%s: %s", tool, refused)
		}
		return out
	}
	schema := json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	fee := func(amount string) map[string]any { return map[string]any{"amount": amount, "currency": "EUR"} }

	pA := start(t, eA, "serve")
	acme, globex := connect(pA, "acme", acmeKey), connect(pA, "globex", globexKey)
	opened := must(acme, "negotiation_open", map[string]any{"subject_schema": schema, "title": "Rotation",
		"limits": map[string]any{"fee": map[string]any{"max": fee("120.00")}}})
	joined := must(globex, "negotiation_join", map[string]any{"invite_code": opened["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"min": fee("80.00")}}})
	ta, tb := opened["room_token"].(string), joined["room_token"].(string)
	if err := pA.stop(); err != nil {
		t.Fatal(err)
	}

	// The rotation: every process restarted with B, and A previous.
	eBA := with(keyB, keyA)
	pBA := start(t, eBA, "serve")
	acme, globex = connect(pBA, "acme", acmeKey), connect(pBA, "globex", globexKey)
	must(acme, "negotiation_read", map[string]any{"room_token": ta})
	// Beyond acme's limit: the limits sealed under A opened to say so.
	if _, refused := call(acme, "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer",
		"subject": map[string]any{"fee": fee("150.00")}}); !strings.Contains(refused, "outside your limits (max 120.00 EUR)") {
		t.Fatalf("an offer beyond the limits sealed under A, during the rotation: %q", refused)
	}
	must(acme, "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"fee": fee("110.00")}})
	verify := func(p *process) {
		t.Helper()
		out, _, err := runCmd(t, eA, "receipt", "verify", receiptFile, "--jwks", "http://"+p.addr+jwksPath, "--issuer", "http://127.0.0.1")
		if err != nil || !strings.HasPrefix(out, "valid: room ") {
			t.Errorf("the receipt signed under A, against %s: %v\n%s", p.addr, err, out)
		}
	}
	verify(pBA)

	out, _, err := runCmd(t, eBA, "secret-key", "rotate", "--batch", "1")
	if err != nil || !strings.Contains(out, "parties.limits_enc: 4 sealed again under SECRET_KEY") ||
		!strings.Contains(out, "4 agents' seats given the new key's room token") || !strings.Contains(out, "Remove it and restart each process") {
		t.Fatalf("secret-key rotate: %v\n%s", err, out)
	}
	if out, _, err = runCmd(t, eBA, "secret-key", "rotate"); err != nil || strings.Contains(out, "sealed again") ||
		!strings.Contains(out, "0 agents' seats") {
		t.Errorf("secret-key rotate again: %v\n%s", err, out)
	}
	// A's tokens still find their seats until A is removed.
	must(globex, "negotiation_read", map[string]any{"room_token": tb})
	if err := pBA.stop(); err != nil {
		t.Fatal(err)
	}

	// A removed.
	if err := startOrRefuse(t, eA, "serve"); err == nil || !strings.Contains(err.Error(), "SECRET_KEY differs") {
		t.Errorf("serve with A alone after the rotation: %v, want refused", err)
	}
	eB := with(keyB, "")
	pB := start(t, eB, "serve")
	acme, globex = connect(pB, "acme", acmeKey), connect(pB, "globex", globexKey)
	if _, refused := call(globex, "negotiation_read", map[string]any{"room_token": tb}); !strings.Contains(refused, "no room of yours has this token") {
		t.Errorf("A's token once A is removed: %q, want no room found", refused)
	}
	list := must(globex, "negotiation_list", map[string]any{})
	rooms, _ := list["rooms"].([]any)
	if len(rooms) != 1 {
		t.Fatalf("globex's list once A is removed: %v", list)
	}
	newTB, _ := rooms[0].(map[string]any)["room_token"].(string)
	if newTB == "" || newTB == tb {
		t.Fatalf("the listed token once A is removed: %q (A's: %q)", newTB, tb)
	}
	// globex's limit (at least 80), sealed again under B, opens: 70 is
	// beyond it, 100 is not.
	if _, refused := call(globex, "negotiation_propose", map[string]any{"room_token": newTB, "verdict": "counter",
		"subject": map[string]any{"fee": fee("70.00")}}); !strings.Contains(refused, "outside your limits (min 80.00 EUR)") {
		t.Errorf("a counter beyond globex's limits once A is removed: %q", refused)
	}
	countered := must(globex, "negotiation_propose", map[string]any{"room_token": newTB, "verdict": "counter",
		"subject": map[string]any{"fee": fee("100.00")}})
	if room, _ := countered["room"].(map[string]any); room == nil || room["turn"] != "them" {
		t.Errorf("globex's counter once A is removed: %v", countered)
	}
	if _, refused := call(acme, "negotiation_read", map[string]any{"room_token": ta}); !strings.Contains(refused, "no room of yours has this token") {
		t.Errorf("acme's token of A once A is removed: %q, want no room found", refused)
	}
	mine, _ := must(acme, "negotiation_list", map[string]any{})["rooms"].([]any)
	if len(mine) != 1 {
		t.Fatalf("acme's list once A is removed: %v", mine)
	}
	if read := must(acme, "negotiation_read", map[string]any{"room_token": mine[0].(map[string]any)["room_token"]}); read["room"].(map[string]any)["turn"] != "you" {
		t.Errorf("acme's read with its new token once A is removed: %v", read)
	}
	verify(pB)
	if out, _, err := runCmd(t, eB, "secret-key", "rotate"); err == nil || !strings.Contains(err.Error(), "SECRET_KEY_PREVIOUS is not set") {
		t.Errorf("secret-key rotate without a previous key: %v\n%s", err, out)
	}
}
