package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// productPace is the service's default pace (ROOM_MAX_ROUNDS 50,
// COUNTER_COOLDOWN 2 s: internal/config, which only cmd/taasky reads).
var productPace = negotiation.Pace{MaxRounds: 50, Cooldown: 2 * time.Second}

// scripted is an agent that knows only the tool list and follows only
// room.next: it makes its planned move when next offers it, and otherwise
// reads with wait_seconds. It counts its calls and the result text it got.
type scripted struct {
	e     *env
	side  string
	token string
	plan  func(room map[string]any) (verdict string, args map[string]any)
	calls int
	bytes int
	err   error
}

func (a *scripted) call(tool string, args any) (map[string]any, error) {
	a.calls++
	res, err := a.e.sessions[a.side].CallTool(a.e.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	text := res.Content[0].(*mcp.TextContent).Text
	a.bytes += len(text)
	if res.IsError {
		return nil, fmt.Errorf("%s %s: %s", a.side, tool, text)
	}
	var out map[string]any
	err = json.Unmarshal([]byte(text), &out)
	return out, err
}

// run plays from the result of the agent's first call until the room is
// agreed or closed.
func (a *scripted) run(first map[string]any) {
	res := first
	for range 30 {
		room := res["room"].(map[string]any)
		if s := room["state"]; s == "agreed" || s == "closed" {
			return
		}
		if res["status"] == "waiting_for_your_human" {
			// The human answers (the service's call a web or email door makes).
			c := res["confirmation"].(map[string]any)
			hash, _ := c["subject_hash"].(string)
			ag := a.e.agents[a.side]
			v, err := a.e.rooms.Read(a.e.ctx, ag, a.token)
			if err == nil {
				_, err = a.e.rooms.DecideAsOwner(a.e.ctx, ag.OwnerUserID, v.RoomID, c["id"].(string), negotiation.SubjectHash(hash), true)
			}
			if a.err = err; err != nil {
				return
			}
		}
		next := room["next"].(map[string]any)
		verdict, args := a.plan(room)
		var err error
		if verdict != "" && slices.Contains(next["verdicts"].([]any), any(verdict)) && res["status"] == nil {
			args["room_token"], args["verdict"] = a.token, verdict
			tool := "negotiation_propose"
			if verdict == "approve" || verdict == "reject" {
				tool = "negotiation_respond"
			}
			res, err = a.call(tool, args)
		} else {
			wait := 0
			if next["check_after"] != nil || res["status"] != nil {
				wait = 25
			}
			res, err = a.call("negotiation_read", map[string]any{"room_token": a.token, "wait_seconds": wait})
		}
		if a.err = err; err != nil {
			return
		}
	}
	a.err = fmt.Errorf("%s: no end after 30 calls", a.side)
}

func fee(amount string) map[string]any {
	return map[string]any{"fee": map[string]any{"amount": amount, "currency": "EUR"}}
}

// tabled is the fee on the table when the other side tabled it ("" if none).
func tabled(room map[string]any) string {
	t, ok := room["terms_on_table"].(map[string]any)
	if !ok || t["by"] != "them" {
		return ""
	}
	terms := t["options"].([]any)[0].(map[string]any)["terms"].(map[string]any)
	return terms["fee"].(map[string]any)["amount"].(string)
}

func onTable(room map[string]any) string {
	return room["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["subject_hash"].(string)
}

// TestScriptedFeeNegotiation is the scenario with the product's
// defaults (the cool-down on): a fee negotiated over three counters by two
// agents that follow only next, then approved by both humans. It holds the
// budget of calls and result text, and logs the figures (docs/agents.md).
func TestScriptedFeeNegotiation(t *testing.T) {
	t.Parallel()
	e := setup(t, func(c *app.RoomsConfig) { c.Now, c.Pace = nil, productPace })
	schema := map[string]any{"fee": map[string]any{"type": "money", "label": "Fee", "currency": "EUR"}}
	a := &scripted{e: e, side: "a", plan: func(room map[string]any) (string, map[string]any) {
		switch tabled(room) {
		case "200.00":
			return "counter", map[string]any{"subject": fee("150.00")}
		case "160.00":
			return "approve", map[string]any{"subject_hash": onTable(room)}
		}
		return "", nil
	}}
	b := &scripted{e: e, side: "b", plan: func(room map[string]any) (string, map[string]any) {
		if h, _ := room["approvals"].(map[string]any)["them"].(string); h != "" {
			return "approve", map[string]any{"subject_hash": h}
		}
		switch tabled(room) {
		case "100.00":
			return "counter", map[string]any{"subject": fee("200.00")}
		case "150.00":
			return "counter", map[string]any{"subject": fee("160.00")}
		}
		return "", nil
	}}
	open, err := a.call("negotiation_open", map[string]any{"subject_schema": schema, "subject": fee("100.00"),
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": "180.00", "currency": "EUR"}}}, "title": "Workshop fee"})
	if err != nil {
		t.Fatal(err)
	}
	a.token = open["room_token"].(string)
	join, err := b.call("negotiation_join", map[string]any{"invite": open["invite_url"], "subject_schema": schema})
	if err != nil {
		t.Fatal(err)
	}
	b.token = join["room_token"].(string)
	var wg sync.WaitGroup
	wg.Go(func() { a.run(open) })
	wg.Go(func() { b.run(join) })
	wg.Wait()
	if a.err != nil || b.err != nil {
		t.Fatal(a.err, b.err)
	}
	end, err := e.rooms.Read(e.ctx, e.agents["a"], a.token)
	if err != nil || end.State != negotiation.StateAgreed {
		t.Fatalf("the room ended %v %v", end, err)
	}
	counters := 0
	for _, r := range end.Rounds {
		if r.Verdict == negotiation.VerdictCounter {
			counters++
		}
	}
	calls, bytes := a.calls+b.calls, a.bytes+b.bytes
	t.Logf("a three-counter fee negotiation (%d counters), cool-down %s: %d calls (a %d, b %d), %d bytes of result text (a %d, b %d)",
		counters, productPace.Cooldown, calls, a.calls, b.calls, bytes, a.bytes, b.bytes)
	if counters != 3 {
		t.Errorf("%d counters, want 3", counters)
	}
	if calls > 14 {
		t.Errorf("%d calls; the budget is 14", calls)
	}
	// The goal is 12 KB; this guards the level reached (17.4 KB,
	// docs/agents.md) against growth. Since issue 20 each side's read of
	// the agreed room carries its receipt (a JWS of about 1.4 KB): 20.1 KB.
	if bytes > 21<<10 {
		t.Errorf("%d bytes of results; the budget is 21 KB", bytes)
	}
	e.check(t)
}

// TestReadOfALongRoom: a read of a ten-round room shows the latest rounds
// and counts the rest, and stays within 1.5 KB; history gives them all.
func TestReadOfALongRoom(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"fee": map[string]any{"type": "money", "label": "Fee", "currency": "EUR"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": fee("100.00"), "title": "Workshop fee"})
	ta := open["room_token"].(string)
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	tokens := map[string]string{"a": ta, "b": tb}
	for i := 2; i <= 10; i++ {
		side := "b"
		if i%2 == 1 {
			side = "a"
		}
		e.must(t, side, "negotiation_propose", map[string]any{"room_token": tokens[side], "verdict": "counter", "subject": fee(fmt.Sprintf("%d.00", 100+i))})
	}
	res, err := e.sessions["b"].CallTool(e.ctx, &mcp.CallToolParams{Name: "negotiation_read", Arguments: map[string]any{"room_token": tb}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	t.Logf("a read of a ten-round room: %d bytes", len(text))
	if len(text) > 1536 {
		t.Errorf("a read of a ten-round room is %d bytes; the budget is 1.5 KB: %s", len(text), text)
	}
	room := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)
	if n := len(room["rounds"].([]any)); n != negotiation.RoundsShown || room["earlier_rounds"] != float64(10-negotiation.RoundsShown) || room["round"] != float64(10) {
		t.Errorf("window: %d rounds shown, earlier %v, round %v", n, room["earlier_rounds"], room["round"])
	}
	all := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb, "history": true})["room"].(map[string]any)
	if n := len(all["rounds"].([]any)); n != 10 || all["earlier_rounds"] != nil {
		t.Errorf("history: %d rounds, earlier %v", n, all["earlier_rounds"])
	}
	if !strings.Contains(all["rounds"].([]any)[0].(map[string]any)["terms"].([]any)[0].(map[string]any)["terms"].(map[string]any)["fee"].(map[string]any)["amount"].(string), "100.00") {
		t.Errorf("history's first round: %v", all["rounds"].([]any)[0])
	}
}
