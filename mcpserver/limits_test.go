package mcpserver

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLimitsOverMCP: own terms outside own limits are refused; the other
// side's are flagged as outside_your_limits; no_deal_possible is told to
// both at the join; and no number of either side's limits appears in
// anything the other agent received.
func TestLimitsOverMCP(t *testing.T) {
	t.Parallel()
	e := setup(t)
	secretsOfA := []string{"731.4", "731,4", "1713", "2391", "08:47", "16:13", "8:47", "4:13"}
	secretsOfB := []string{"912.6", "912,6", "1949"}
	// The service's clock steers clear of a limit's clock needle: at 04:13
	// every moment b is sent (when, deadline, check_after) spelt a's
	// "4:13", and the test failed for a minute.
	for now := time.Unix(0, e.clock.Load()).UTC(); ; now = now.Add(-time.Minute) {
		if !slices.ContainsFunc(secretsOfA, func(n string) bool { return strings.Contains(now.Format("15:04"), n) }) {
			e.clock.Store(now.UnixNano())
			break
		}
	}
	schema := map[string]any{
		"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"},
		"fee":          map[string]any{"type": "money", "label": "Fee", "currency": "EUR"},
		"seats":        map[string]any{"type": "int", "label": "Seats"},
	}
	limitsA := map[string]any{
		"fee":          map[string]any{"max": map[string]any{"amount": "731.40", "currency": "EUR"}},
		"seats":        map[string]any{"min": 1713, "max": 2391},
		"meeting_time": map[string]any{"min": "2026-12-03T08:47:00Z", "max": "2026-12-03T16:13:00Z"},
	}
	limitsB := map[string]any{
		"fee":   map[string]any{"min": map[string]any{"amount": "912.60", "currency": "EUR"}},
		"seats": map[string]any{"min": 1949},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "limits": limitsA})
	ta := open["room_token"].(string)
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema, "limits": limitsB})
	tb := join["room_token"].(string)
	if nd := join["room"].(map[string]any)["no_deal_possible"].([]any); len(nd) != 1 || nd[0] != "fee" {
		t.Fatalf("b is told no deal on fee: %v", nd)
	}
	readA := e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta})["room"].(map[string]any)
	if nd := readA["no_deal_possible"].([]any); len(nd) != 1 || nd[0] != "fee" {
		t.Fatalf("a is told no deal on fee: %v", nd)
	}
	terms := func(fee string, seats int, start, end string) map[string]any {
		return map[string]any{"fee": map[string]any{"amount": fee, "currency": "EUR"}, "seats": seats,
			"meeting_time": map[string]any{"start": start, "end": end}}
	}
	_, msg := e.call(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer",
		"subject": terms("800.00", 2000, "2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z")})
	if msg != "fee: outside your limits (max 731.40 EUR)" {
		t.Fatalf("own terms outside own limits: %q", msg)
	}
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": ta, "verdict": "offer",
		"subject": terms("700.00", 1800, "2026-12-03T10:00:00Z", "2026-12-03T11:00:00Z")})
	readB := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)
	flags := readB["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["outside_your_limits"].([]any)
	got := []string{}
	for _, f := range flags {
		m := f.(map[string]any)
		got = append(got, m["field"].(string)+":"+m["bound"].(string))
	}
	if strings.Join(got, ",") != "fee:min,seats:min" {
		t.Fatalf("b's flags: %v", got)
	}
	if !strings.Contains(readB["for_your_human"].(string), "OUTSIDE YOUR LIMITS") {
		t.Fatalf("b's human is told: %s", readB["for_your_human"])
	}
	// b counters outside a's limits: a sees flags on seats and the time.
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter",
		"subject": terms("950.00", 3000, "2026-12-03T16:00:00Z", "2026-12-03T17:00:00Z")})
	e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta})
	_, _ = e.call(t, "a", "negotiation_list", map[string]any{})

	for _, s := range secretsOfA {
		if bytes.Contains(e.seen["b"].Bytes(), []byte(s)) {
			t.Errorf("a's limit %q appears in what b received", s)
		}
	}
	for _, s := range secretsOfB {
		if bytes.Contains(e.seen["a"].Bytes(), []byte(s)) {
			t.Errorf("b's limit %q appears in what a received", s)
		}
	}
	if e.seen["b"].Len() < 1000 || e.seen["a"].Len() < 1000 {
		t.Fatalf("nothing recorded: %d, %d bytes", e.seen["a"].Len(), e.seen["b"].Len())
	}
	e.check(t)
}

// TestNoDealOnAnOptionalField: limits that cannot overlap on a field either
// side may leave out are told to both, but as what they are: an agent is
// not told that any terms break a limit, and a human reads that terms
// without the field can still be agreed; an offer without it is agreeable.
func TestNoDealOnAnOptionalField(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{
		"seats": map[string]any{"type": "int", "label": "Seats"},
		"fee":   map[string]any{"type": "money", "label": "Fee", "currency": "EUR", "optional": true},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": "100", "currency": "EUR"}}}})
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"min": map[string]any{"amount": "200", "currency": "EUR"}}}})
	room := join["room"].(map[string]any)
	if nd := room["no_deal_possible"].([]any); len(nd) != 1 || nd[0] != "fee" {
		t.Fatalf("no deal on fee: %v", nd)
	}
	say := room["next"].(map[string]any)["say"].(string)
	if !strings.Contains(say, "it is optional, so terms that leave it out can still agree") || strings.Contains(say, "any terms break") {
		t.Errorf("next.say: %q", say)
	}
	human := room["for_your_human"].(string)
	if !strings.Contains(human, "No deal is possible on Fee") || !strings.Contains(human, "Terms that leave out Fee are not held to these limits and can still be agreed.") {
		t.Errorf("for_your_human:\n%s", human)
	}
	e.must(t, "a", "negotiation_propose", map[string]any{"room_token": open["room_token"], "verdict": "offer", "subject": map[string]any{"seats": 3}})
	readB := e.must(t, "b", "negotiation_read", map[string]any{"room_token": join["room_token"]})["room"].(map[string]any)
	if flags := readB["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["outside_your_limits"]; flags != nil {
		t.Errorf("terms without the fee flagged: %v", flags)
	}
}

// TestTimeLimitsAcrossOffsets: limits on a meeting time are instants,
// whatever offset each side writes them at: in Berlin's repeated hour
// (25 Oct 2026, 02:30 is 00:30Z at +02:00 and 01:30Z at +01:00), a window
// that ends where the other begins (the same instant at two offsets)
// leaves no deal; a range ending exactly at the other's latest end, given
// at another offset, is within; and a refusal tells the bound as declared,
// its fraction of a second too (it said 01:30:00Z for 01:30:00.5Z, an
// end of 01:30:00.25 then looked within it).
func TestTimeLimitsAcrossOffsets(t *testing.T) {
	t.Parallel()
	e := setup(t)
	slots := []any{map[string]any{"start": "2026-10-25T02:30:00+02:00", "end": "2026-10-25T02:30:00+01:00"}}
	window := func(min, max string) map[string]any {
		return map[string]any{"meeting_time": map[string]any{"min": min, "max": max}}
	}
	// a: at the latest until 02:30 the second time (01:30Z); b: from 02:30 the second time, written in UTC.
	open := e.must(t, "a", "negotiation_open", map[string]any{"slots": slots, "limits": window("2026-10-24T00:00:00Z", "2026-10-25T02:30:00+01:00")})
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "limits": window("2026-10-25T01:30:00Z", "2026-10-26T00:00:00Z")})
	if nd, _ := join["room"].(map[string]any)["no_deal_possible"].([]any); len(nd) != 1 || nd[0] != "meeting_time" {
		t.Errorf("windows meeting at one instant, at two offsets: no_deal_possible %v", nd)
	}
	// b from 01:29:59Z: a second of room.
	open = e.must(t, "a", "negotiation_open", map[string]any{"slots": slots, "limits": window("2026-10-24T00:00:00Z", "2026-10-25T02:30:00+01:00")})
	join = e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "limits": window("2026-10-25T02:29:59+01:00", "2026-10-25T01:30:00.5Z")})
	if nd, _ := join["room"].(map[string]any)["no_deal_possible"].([]any); len(nd) != 0 {
		t.Errorf("windows sharing a second: no_deal_possible %v", nd)
	}
	tb := join["room_token"].(string)
	// The slot (00:30Z–01:30Z) starts before b's window: flagged min only;
	// its end, 02:30+01:00, is b's latest end as b wrote it in UTC.
	opt := join["room"].(map[string]any)["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)
	if flags, _ := opt["outside_your_limits"].([]any); len(flags) != 1 || flags[0].(map[string]any)["bound"] != "min" {
		t.Errorf("the slot against b's window: %v", flags)
	}
	_, msg := e.call(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter",
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-10-25T02:29:59+01:00", "end": "2026-10-25T01:30:00.75Z"}}})
	if msg != "meeting_time: outside your limits (max 2026-10-25T01:30:00.5Z)" {
		t.Errorf("b's own end past its latest end by a quarter second: %q", msg)
	}
	e.must(t, "b", "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter",
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-10-25T01:29:59Z", "end": "2026-10-25T02:30:00.5+01:00"}}})
}
