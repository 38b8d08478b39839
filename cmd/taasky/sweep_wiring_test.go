package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSweepClosesARoomAtItsDeadline: in the wired process, the River
// periodic sweep (no job of the room's own) closes a room whose deadline
// passed, and the agent reads it lapsed.
func TestSweepClosesARoomAtItsDeadline(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	_, keys := startDevAgents(t, e)
	session := agentSession(t, e["BASE_URL"]+"/mcp/demo-a", bearer(keys[0]))
	deadline := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(time.Second)
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{
		"subject_schema": json.RawMessage(`{"place":{"type":"enum","label":"Where","values":["office","video"]}}`),
		"deadline":       deadline.UTC().Format(time.RFC3339)}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %v %+v", err, res)
	}
	var room struct {
		RoomToken string `json:"room_token"`
		Room      struct {
			State        string `json:"state"`
			ClosedReason string `json:"closed_reason"`
		} `json:"room"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &room); err != nil || room.RoomToken == "" {
		t.Fatalf("open result: %s", raw)
	}
	token := room.RoomToken
	end := time.Now().Add(20 * time.Second)
	for {
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_read",
			Arguments: map[string]any{"room_token": token}})
		if err != nil || res.IsError {
			t.Fatalf("negotiation_read: %v %+v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &room); err != nil {
			t.Fatal(err)
		}
		if room.Room.State == "closed" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("20 s after the open the room is %s: %s", room.Room.State, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if room.Room.ClosedReason != "lapsed" {
		t.Fatalf("closed %q, want lapsed", room.Room.ClosedReason)
	}
	t.Logf("closed %s after its deadline", time.Since(deadline).Round(time.Millisecond))
}

// TestPurgeDeletesOldDataAtStart: the wired worker's purge_expired job
// (run at start, then hourly) deletes what outlived its period with the
// configured periods: a delivery log line older than
// RETAIN_DELIVERY_LOG_DAYS goes, one inside it stays.
func TestPurgeDeletesOldDataAtStart(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	e["RETAIN_DELIVERY_LOG_DAYS"] = "10"
	if _, _, err := runCmd(t, e, "migrate"); err != nil {
		t.Fatal(err)
	}
	db, err := pgxpool.New(t.Context(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(t.Context(), `WITH u AS (INSERT INTO users (email) VALUES ('old@example.test') RETURNING id)
		INSERT INTO notification_deliveries (user_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		SELECT id, j, 'email', 'test', 'old@example.test', 'sent', now() - d * interval '1 day', now() - d * interval '1 day'
		FROM u, (VALUES (1, 11), (2, 9)) v(j, d)`); err != nil {
		t.Fatal(err)
	}
	p := start(t, e, "dev")
	p.waitStdout(t, "Stop with Ctrl-C.")
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var old, recent int
		if err := db.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE job_id = 1), count(*) FILTER (WHERE job_id = 2)
			FROM notification_deliveries WHERE recipient = 'old@example.test'`).Scan(&old, &recent); err != nil {
			t.Fatal(err)
		}
		if recent != 1 {
			t.Fatal("the purge deleted the line of 9 days ago")
		}
		if old == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatal("the line of 11 days ago is still there 20 s after the start")
		}
	}
}
