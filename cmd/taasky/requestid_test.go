package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withRequestID sends an X-Request-Id, as a proxy in front would, and
// keeps the one each answer carried.
type withRequestID struct {
	key, id string
	got     []string
}

func (w *withRequestID) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+w.key)
	if w.id != "" {
		req.Header.Set("X-Request-Id", w.id)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil {
		w.got = append(w.got, resp.Header.Get("X-Request-Id"))
	}
	return resp, err
}

// TestFailedCallNamesItsRequest: a move that fails in the database (its
// room's row held by another session, over psql's kind of connection)
// is logged at ERROR with the request's id, the one the proxy sent in
// X-Request-Id, and every answer carries the id it was logged under (one
// of Taasky's own when none, or a bad one, came): the operator goes from
// the proxy's log line, or from what a client saw, to the log line and
// back. Before, the line had the tool, the account and the agent only,
// and nothing tied it to one request.
func TestFailedCallNamesItsRequest(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	e["TRUSTED_PROXIES"] = "127.0.0.1,::1" // the test is the proxy: its X-Request-Id is taken
	p, keys := startDevAgents(t, e)
	rt := &withRequestID{key: keys[0]}
	s := agentSession(t, e["BASE_URL"]+"/mcp/demo-a", rt)
	schema := json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_open", Arguments: map[string]any{"subject_schema": schema, "title": "Quote"}})
	if err != nil || res.IsError {
		t.Fatalf("negotiation_open: %v %+v", err, res)
	}
	var opened struct {
		RoomToken string `json:"room_token"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &opened)
	if own := rt.got[len(rt.got)-1]; !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(own) {
		t.Errorf("an answer to a request without an id carried X-Request-Id %q, want one of Taasky's", own)
	}

	conn, err := pgx.Connect(context.Background(), e["DATABASE_URL"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(context.Background(), `SELECT id FROM rooms FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	rt.id = "lb-4711.a:b_c"
	res, err = s.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_propose", Arguments: map[string]any{"room_token": opened.RoomToken,
		"verdict": "offer", "subject": map[string]any{"fee": map[string]any{"amount": "12.00", "currency": "EUR"}}}})
	if err != nil || !res.IsError {
		t.Fatalf("a move on a room held by another session: %v %+v", err, res)
	}
	_ = tx.Rollback(context.Background())
	if got := rt.got[len(rt.got)-1]; got != rt.id {
		t.Errorf("the answer's X-Request-Id %q, want the proxy's %q", got, rt.id)
	}
	line := ""
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		if strings.Contains(l, `msg="tool call failed"`) {
			line = l
		}
	}
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "tool=negotiation_propose") ||
		!strings.Contains(line, "account=demo-a") || !strings.Contains(line, "request_id="+rt.id) {
		t.Fatalf("the failed call's line %q lacks its request's id %s:\n%s", line, rt.id, p.stderr.String())
	}
	if strings.Contains(line, opened.RoomToken) || strings.Contains(line, "12.00") {
		t.Errorf("the line holds the call's arguments: %s", line)
	}

	rt.id = "no spaces\tor tabs" // not an id: replaced, never logged
	if _, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "negotiation_list", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if got := rt.got[len(rt.got)-1]; !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(got) {
		t.Errorf("a bad X-Request-Id was answered %q, want one of Taasky's", got)
	}
}
