package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNoDealBisectionThroughMCP: demo-a's agent opens room after room to
// demo-b, whose agent joins each with the same private limits, demo-a's
// bound on fee moved each time: as a prober bisecting demo-b's max fee
// would (it found 731.40 EUR to the cent in 18 rooms before the rule
// between two accounts). Only the first room's verdict is told.
func TestNoDealBisectionThroughMCP(t *testing.T) {
	t.Parallel()
	e := devEnv(t)
	_, keys := startDevAgents(t, e)
	prober := agentSession(t, e["BASE_URL"]+"/mcp/demo-a", bearer(keys[0]))
	victim := agentSession(t, e["BASE_URL"]+"/mcp/demo-b", bearer(keys[1]))
	call := func(s *mcp.ClientSession, tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var got map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	schema := json.RawMessage(`{"fee":{"type":"money","label":"Fee","currency":"EUR"}}`)
	noDeal := func(result map[string]any) bool {
		room, _ := result["room"].(map[string]any)
		fields, _ := room["no_deal_possible"].([]any)
		return slices.Contains(fields, any("fee"))
	}
	lo, hi, told, rooms := 0, 200001, 0, 0
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		opened := call(prober, "negotiation_open", map[string]any{"subject_schema": schema, "title": "Quote",
			"limits": json.RawMessage(fmt.Sprintf(`{"fee":{"min":{"amount":"%d.%02d","currency":"EUR"}}}`, mid/100, mid%100))})
		joined := call(victim, "negotiation_join", map[string]any{"invite_code": opened["invite_code"], "subject_schema": schema,
			"limits": json.RawMessage(`{"fee":{"max":{"amount":"731.40","currency":"EUR"}}}`)})
		read := call(prober, "negotiation_read", map[string]any{"room_token": opened["room_token"]})
		if noDeal(read) != noDeal(joined) {
			t.Fatalf("room %d: the prober read %v, the victim was told %v", rooms+1, read["room"], joined["room"])
		}
		rooms++
		if noDeal(read) {
			told++
			hi = mid
		} else {
			lo = mid
		}
	}
	if lo == 73140 || told != 1 {
		t.Fatalf("after %d rooms the prober found %d.%02d EUR; fee was named in %d rooms (want: the first only)", rooms, lo/100, lo%100, told)
	}
}
