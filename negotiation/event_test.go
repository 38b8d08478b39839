package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestReplayRefusals(t *testing.T) {
	p := openPlay(t, OpenRequest{Subject: qty1})
	p.join(qtySchema, nil)
	p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
	p.decide(SideB, "b1", true)
	p.replays()
	log := p.events // open, propose, join, request, decide
	if kinds := []EventKind{log[0].Kind, log[1].Kind, log[2].Kind, log[3].Kind, log[4].Kind}; !slices.Equal(kinds, []EventKind{EventOpen, EventPropose, EventJoin, EventRequest, EventDecide}) {
		t.Fatalf("log %v", kinds)
	}
	edit := func(i int, f func(*Event)) []Event {
		out := slices.Clone(log)
		f(&out[i])
		return out
	}
	cases := []struct {
		name   string
		events []Event
		limits [2][]byte
		msg    string
	}{
		{"empty", nil, p.limits, "replay: the log does not start with an open"},
		{"no open first", log[2:], p.limits, "replay: the log does not start with an open"},
		{"a second open", append([]Event{log[0]}, log...), p.limits, "replay: event 1: a second open"},
		{"an unknown kind", edit(2, func(e *Event) { e.Kind = "merge" }), p.limits, `replay: event 2 (merge): unknown event kind "merge"`},
		{"another outcome", edit(4, func(e *Event) { e.Outcome = ResultDeclined }), p.limits, "replay: event 4 (decide): outcome applied, logged declined"},
		{"a refused move", edit(1, func(e *Event) { e.Side = SideB }), p.limits, "replay: event 1 (propose): only the initiator moves in a draft"},
		{"terms the schema refuses", edit(1, func(e *Event) { e.Terms = []json.RawMessage{[]byte(`{"qty":"1"}`)} }), p.limits, "replay: event 1 (propose): qty: must be a whole number, not a string"},
		{"a broken schema", edit(0, func(e *Event) { e.Schema = []byte(`{`) }), p.limits, "replay: event 0 (open): subject_schema: not valid JSON: expected a key at byte 1"},
		{"limits that do not parse", log, [2][]byte{nil, []byte(`{"nope":{}}`)}, "replay: event 2 (join): limits: unknown field: nope (limits apply to your own schema's fields)"},
		{"a decide for nothing pending", append(slices.Clone(log), log[4]), p.limits, "replay: event 5 (decide): this confirmation is no longer pending"},
	}
	for _, c := range cases {
		_, err := Replay(c.events, c.limits)
		if errText(err) != c.msg {
			t.Errorf("%s: %q, want %q", c.name, errText(err), c.msg)
		}
	}
	// A protocol error keeps its code through the wrapping.
	_, err := Replay(edit(1, func(e *Event) { e.Side = SideB }), p.limits)
	if e := (*Error)(nil); !errors.As(err, &e) || e.Code != CodeRefused {
		t.Errorf("wrapped error %v", err)
	}

	// A close logged with another reason than the room's.
	d := openPlay(t, OpenRequest{})
	r, ev, err := d.r.CloseDue(d.r.ExpiresAt)
	if err != nil || r.ClosedReason != ClosedExpired {
		t.Fatal(err)
	}
	ev.Reason = ClosedLapsed
	if _, err := Replay(append(d.events, ev), d.limits); errText(err) != "replay: event 1 (close): closed expired, logged lapsed" {
		t.Errorf("close: %v", err)
	}
	// A close logged too early.
	ev.Reason, ev.At = ClosedExpired, d.r.ExpiresAt.Add(-time.Second)
	if _, err := Replay(append(d.events, ev), d.limits); errText(err) != "replay: event 1 (close): room is not due to close" {
		t.Errorf("early close: %v", err)
	}
}

// TestReplayThroughJSON: the log as stored (JSON) replays to the same
// snapshot, which is what the consistency checker compares.
func TestReplayThroughJSON(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, []byte(`{"qty":2,"place":"video"}`)}, Preapprove: true,
		PreapprovalID: "pre", Limits: []byte(`{"place":{"one_of":["video"]}}`)})
	p.decide(SideA, "pre", true)
	p.join([]byte(`{"qty":{"type":"int","label":"Menge"},"place":{"type":"enum","label":"Ort","values":["office","video","cafe"]}}`),
		[]byte(`{"place":{"one_of":["cafe"]}}`))
	if !slices.Equal(p.r.NoDeal, []string{"place"}) {
		t.Errorf("no deal %v", p.r.NoDeal)
	}
	p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"place"}})
	p.propose(SideA, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
	p.confirm(SideB, VerdictApprove, p.r.Table.Options[1].Hash())
	if p.r.State != StateAgreed {
		t.Fatalf("a preapproved pick does not agree the room: %s", p.r.State)
	}
	events := p.replayThroughJSON()
	// Replaying with other limits gives another room: limits are part of
	// what is replayed, though no event holds them.
	other, err := Replay(events, [2][]byte{p.limits[0], nil})
	if err != nil {
		t.Fatal(err)
	}
	if other.NoDeal != nil || bytes.Equal(other.Snapshot(), p.r.Snapshot()) {
		t.Errorf("no deal with b's limits left out: %v", other.NoDeal)
	}
}

// replayThroughJSON stores the play's log as JSON, reads it back, and
// checks that replaying it gives the play's room; it returns the events
// read back.
func (p *play) replayThroughJSON() []Event {
	p.t.Helper()
	stored, err := json.Marshal(p.events)
	if err != nil {
		p.t.Fatal(err)
	}
	var events []Event
	if err := json.Unmarshal(stored, &events); err != nil {
		p.t.Fatal(err)
	}
	again, err := Replay(events, p.limits)
	if err != nil {
		p.t.Fatal(err)
	}
	if !bytes.Equal(again.Snapshot(), p.r.Snapshot()) {
		p.t.Errorf("replay through JSON differs\n got %s\nwant %s", again.Snapshot(), p.r.Snapshot())
	}
	return events
}
