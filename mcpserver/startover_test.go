package mcpserver

import (
	"bytes"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
)

// startOver is the installation starting over with a new SECRET_KEY
// (docs/operations.md): the same database, served by a process whose
// limits key is another. Its rooms log into the buffer returned.
func startOver(t *testing.T, e *env) *logBuffer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	logs := &logBuffer{}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: e.pool, River: e.river, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{2}, 32), BaseURL: base, Now: func() time.Time { return time.Unix(0, e.clock.Load()) },
		Receipts: testReceiptKeys(t, base), Log: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close)
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	New(rooms, "test").WithLogger(slog.New(slog.NewJSONHandler(e.logs, nil))).Mount(web, e.accounts)
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	e.rooms, e.url = rooms, base
	for side := range e.agents {
		e.sessions[side] = e.connect(t, side, e.keys[side])
	}
	return logs
}

// TestRoomSealedUnderAnotherKey: after a start over with a new
// SECRET_KEY, every tool on a room opened before answers one refusal that
// says why and what is left (not "internal error"), the list still lists
// it, its cancel goes through and its human's answer closes it, and the
// reason is logged once for the room.
func TestRoomSealedUnderAnotherKey(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"fee": map[string]any{"type": "int", "label": "Fee"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "limits": map[string]any{"fee": map[string]any{"max": 4321}}})
	ta := open["room_token"].(string)
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"min": 1000}}})
	tb := join["room_token"].(string)
	v, err := e.rooms.Read(e.ctx, e.agents["b"], tb)
	if err != nil {
		t.Fatal(err)
	}
	roomID := v.RoomID

	logs := startOver(t, e)
	const want = "can no longer be read or moved: its private limits were sealed with a key this installation no longer has"
	calls := []struct {
		side, tool string
		args       map[string]any
	}{
		{"a", "negotiation_read", map[string]any{"room_token": ta}},
		{"b", "negotiation_read", map[string]any{"room_token": tb}},
		{"b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "offer", "subject": map[string]any{"fee": 2000}}},
		{"a", "negotiation_respond", map[string]any{"room_token": ta, "verdict": "reject"}},
	}
	for _, c := range calls {
		_, msg := e.call(t, c.side, c.tool, c.args)
		if !strings.Contains(msg, want) || !strings.Contains(msg, "negotiation_cancel") {
			t.Errorf("%s %s on a room sealed under the old key: %q, want the refusal that says why", c.side, c.tool, msg)
		}
	}
	list := e.must(t, "a", "negotiation_list", map[string]any{"room_tokens": []string{ta}})
	if rooms, _ := list["rooms"].([]any); len(rooms) != 1 {
		t.Errorf("negotiation_list: %v", list)
	}
	cancel := e.must(t, "a", "negotiation_cancel", map[string]any{"room_token": ta})
	c := cancel["room"].(map[string]any)["pending_confirmation"].(map[string]any)
	if d, err := e.rooms.DecideAsOwner(e.ctx, e.agents["a"].OwnerUserID, roomID, c["id"].(string), "", true); err != nil || d.State != "closed" {
		t.Errorf("the human confirmed the cancel: %v, %v; want the room closed", d, err)
	}
	if _, msg := e.call(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer", "subject": map[string]any{"fee": 2000}}); msg == "" {
		t.Error("a move after the cancel went through")
	}
	if n := strings.Count(logs.String(), `"room sealed under another SECRET_KEY`); n != 1 {
		t.Errorf("the room's reason logged %d times, want once:\n%s", n, logs)
	}
	if !strings.Contains(logs.String(), `"room":`+itoa(roomID)) {
		t.Errorf("the log does not name room %d:\n%s", roomID, logs)
	}
	if strings.Contains(e.logs.String(), "tool call failed") {
		t.Errorf("a tool call failed as internal:\n%s", e.logs)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
