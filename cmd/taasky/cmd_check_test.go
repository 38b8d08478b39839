package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestCheck: rooms made through the service replay to themselves (0
// differences); a room altered behind the service's back is reported and
// the command fails.
func TestCheck(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	ctx := context.Background()
	srv, agent := acmeServer(t, e)
	peer := peerAgent(t, srv)
	schema := json.RawMessage(`{"day":{"type":"date","label":"Day"}}`)
	for range 3 {
		open, err := srv.rooms.Open(ctx, agent, app.OpenInput{Schema: schema, Subject: json.RawMessage(`{"day":"2026-12-24"}`),
			Limits: json.RawMessage(`{"day":{"min":"2026-12-01"}}`)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.rooms.Join(ctx, peer, app.JoinInput{InviteCode: open.InviteURL, Schema: schema}); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCmd(t, e, "check")
	if err != nil || !strings.Contains(out, "3 rooms checked, 0 differences") {
		t.Fatalf("check: %v\n%s", err, out)
	}
	// A column beside the snapshot changed in SQL (the lists and the sweep
	// read them): each is noticed, and put back.
	for _, c := range []struct{ set, undo, says string }{
		{"round = round + 7", "round = round - 7", "round"},
		{"deadline = deadline - interval '1 hour'", "deadline = deadline + interval '1 hour'", "deadline"},
		{"expires_at = expires_at + interval '1 day'", "expires_at = expires_at - interval '1 day'", "expires"},
		{"closed_reason = 'rejected'", "closed_reason = NULL", "awaiting/rejected"},
		{"title = 'Free lunch'", "title = NULL", `the room's title is "Free lunch", its open event's ""`},
	} {
		if _, err := srv.pool.Exec(ctx, `UPDATE rooms SET `+c.set+` WHERE id = (SELECT min(id) FROM rooms)`); err != nil {
			t.Fatal(err)
		}
		out, _, err = runCmd(t, e, "check")
		if err == nil || !strings.Contains(out, "1 differences") || !strings.Contains(out, c.says) {
			t.Fatalf("%s went unnoticed: %v\n%s", c.set, err, out)
		}
		if _, err := srv.pool.Exec(ctx, `UPDATE rooms SET `+c.undo+` WHERE id = (SELECT min(id) FROM rooms)`); err != nil {
			t.Fatal(err)
		}
	}

	// An event changed in SQL (the offer's day): the chain names it, and
	// the event after it.
	var room int64
	if err := srv.pool.QueryRow(ctx, `UPDATE room_events SET event = replace(event, '2026-12-24', '2026-12-25')
		WHERE room_id = (SELECT max(id) FROM rooms) AND seq = 2 AND event LIKE '%2026-12-24%' RETURNING room_id`).Scan(&room); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, e, "check")
	want := fmt.Sprintf("room %d: hash chain broken at event 2: it hashes to sha256:", room)
	if err == nil || !strings.Contains(out, want) || !strings.Contains(out, "event 3 carries") || !strings.Contains(out, "1 differences") {
		t.Fatalf("a changed event went unnoticed, or unnamed (want %q): %v\n%s", want, err, out)
	}
	// The last event changed: the head names it.
	if err := srv.pool.QueryRow(ctx, `UPDATE room_events SET event = replace(event, '"Day"', '"Night"')
		WHERE room_id = (SELECT min(id) + 1 FROM rooms) AND seq = (SELECT seq FROM rooms WHERE id = room_id)
		AND event LIKE '%"Day"%' RETURNING room_id`).Scan(&room); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCmd(t, e, "check")
	if !strings.Contains(out, fmt.Sprintf("room %d: hash chain broken at event", room)) || !strings.Contains(out, "the room's head says") {
		t.Fatalf("a changed last event went unnoticed:\n%s", out)
	}
}

// acmeServer makes the account acme with the command, opens the service
// as e configures it (closed with the test), and gives acme an agent.
func acmeServer(t *testing.T, e env) (*server, app.Agent) {
	t.Helper()
	if _, _, err := runCmd(t, e, "account", "create", "--slug", "acme", "--name", "Acme", "--owner-email", "a@example.test"); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(e.get, config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := openServer(t.Context(), cfg, slog.New(slog.DiscardHandler), false, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.close)
	agent, _, err := srv.accounts.CreateAgent(t.Context(), "acme", "bot", "a@example.test")
	if err != nil {
		t.Fatal(err)
	}
	return srv, agent
}

// peerAgent is an agent of another human, in another account (globex),
// to join acme's rooms: a room's two sides answer to two humans.
func peerAgent(t *testing.T, srv *server) app.Agent {
	t.Helper()
	if _, err := srv.accounts.CreateAccount(t.Context(), "globex", "Globex", "b@example.test"); err != nil {
		t.Fatal(err)
	}
	agent, _, err := srv.accounts.CreateAgent(t.Context(), "globex", "bot", "b@example.test")
	if err != nil {
		t.Fatal(err)
	}
	return agent
}

// TestCheckAfterANewSecretKey: after an installation started over with a
// new SECRET_KEY (docs/operations.md: installation.key_check cleared), the
// rooms opened before hold limits sealed under the old key. `taasky check`
// names each such room, saying SECRET_KEY, and checks the others; it used
// to stop at the first one with "cipher: message authentication failed".
func TestCheckAfterANewSecretKey(t *testing.T) {
	t.Parallel()
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	ctx := context.Background()
	srv, agent := acmeServer(t, e)
	schema := json.RawMessage(`{"day":{"type":"date","label":"Day"}}`)
	for range 2 {
		if _, err := srv.rooms.Open(ctx, agent, app.OpenInput{Schema: schema, Limits: json.RawMessage(`{"day":{"min":"2026-12-01"}}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.pool.Exec(ctx, `UPDATE installation SET key_check = NULL`); err != nil {
		t.Fatal(err)
	}
	e["SECRET_KEY"] = testSecret + "-new"
	out, _, err := runCmd(t, e, "check")
	if err == nil || !strings.Contains(out, "2 rooms checked, 2 differences") ||
		strings.Count(out, "does not open with this SECRET_KEY") != 2 {
		t.Errorf("check after a new key: %v\n%s", err, out)
	}
}
