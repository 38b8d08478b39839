package negotiation

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pendingHash is the hash the side's human is shown for its pending
// confirmation id ("" if none is pending under that id).
func pendingHash(r *Room, side Side, id string) SubjectHash {
	if c := r.PendingFor(side); c != nil && c.ID == id {
		return c.SubjectHash
	}
	return ""
}

func TestDecideBindsTheHashSeen(t *testing.T) {
	const msg = "subject_hash: the answer is for other terms than the ones waiting for it"
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}})
	p.join(qtySchema, nil)
	h0, h1 := p.r.Table.Options[0].Hash(), p.r.Table.Options[1].Hash()
	p.request(SideB, VerdictApprove, h0, "b1")
	for _, accept := range []bool{true, false} {
		for _, seen := range []SubjectHash{h1, "", "sha256:00"} {
			_, _, _, err := p.r.Decide(SideB, "b1", seen, accept, p.tick())
			refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, msg)
		}
	}
	// Another id is no longer pending, whatever the hash.
	_, _, _, err := p.r.Decide(SideB, "b0", h0, true, p.tick())
	refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "this confirmation is no longer pending")
	// A reject quotes no hash: an answer that carries one is for other terms.
	p.request(SideB, VerdictReject, h0, "b2")
	_, _, _, err = p.r.Decide(SideB, "b2", h0, true, p.tick())
	refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, msg)
	if res, _ := p.decide(SideB, "b2", true); res != ResultApplied || p.r.ClosedReason != ClosedRejected {
		t.Fatalf("%s %s", res, p.r.ClosedReason)
	}
	p.replays()
}

func TestReplayRefusesADecideForOtherTerms(t *testing.T) {
	p := joined(t, qty1)
	p.confirm(SideB, VerdictApprove, p.r.Table.Options[0].Hash())
	events := append([]Event(nil), p.events...)
	events[len(events)-1].Hash = "sha256:00"
	if _, err := Replay(events, p.limits); err == nil || !strings.Contains(err.Error(), "the answer is for other terms") {
		t.Fatalf("replay of a decide for other terms: %v", err)
	}
}

func TestRequestIsNeverAPreapproval(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}, Preapprove: true, PreapprovalID: "pre"})
	// Even where a preapproval is due, an agent may not ask for one.
	_, _, err := p.r.Request(SideA, VerdictPreapprove, "", "again", p.tick(), Announced)
	refusedWith(t, p.r.Snapshot(), p.r, err, CodeInvalidInput, "verdict must be approve or reject")
	if err := CheckRequestVerdict(VerdictPreapprove); err == nil || err.Error() != "verdict must be approve or reject" {
		t.Errorf("CheckRequestVerdict(preapprove): %v", err)
	}
	for _, v := range []Verdict{VerdictApprove, VerdictReject, VerdictCancel} {
		if err := CheckRequestVerdict(v); err != nil {
			t.Errorf("CheckRequestVerdict(%s): %v", v, err)
		}
	}
	// The initiator's human may be asked again (it replaces the pending one).
	n, ev, err := p.r.RequestPreapproval(SideA, "again", p.tick(), Announced)
	if err != nil || ev.Verdict != VerdictPreapprove || n.PendingFor(SideA).ID != "again" {
		t.Fatalf("%v %+v", err, ev)
	}
	p.r, p.events = n, append(p.events, ev)
	p.replays()
}

// TestAnswerIsARequestAndItsDecision: a person's answer logs the events an
// agent's request and its human's yes would, so replay and the checker see
// no difference.
func TestAnswerIsARequestAndItsDecision(t *testing.T) {
	at := t0.Add(time.Hour)
	for _, v := range []Verdict{VerdictApprove, VerdictReject, VerdictCancel} {
		p := joined(t, qty1)
		h := p.r.Table.Options[0].Hash()
		got, gotEvents, err := p.r.Answer(SideB, Answer{Verdict: v, Hash: h}, "x", at)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if v != VerdictApprove {
			h = ""
		}
		asked, evReq, err := p.r.Request(SideB, v, h, "x", at, Announced)
		if err != nil {
			t.Fatal(err)
		}
		want, evDec, _, err := asked.Decide(SideB, "x", h, true, at)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotEvents, []Event{evReq, evDec}) || string(got.Snapshot()) != string(want.Snapshot()) {
			t.Errorf("%s: events %+v, want %+v", v, gotEvents, []Event{evReq, evDec})
		}
	}
	// A counter is a counter; on an empty table it is an offer.
	p := joined(t, qty1)
	_, evs, err := p.r.Answer(SideB, Answer{Verdict: VerdictOffer, Terms: qty2}, "x", at)
	if err != nil || len(evs) != 1 || evs[0].Verdict != VerdictCounter {
		t.Fatalf("%v %+v", err, evs)
	}
}

func TestAnswerInvitation(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}})
	before := p.r.Snapshot()
	n, evs, err := p.r.AnswerInvitation(Answer{Verdict: VerdictApprove, Hash: p.r.Table.Options[1].Hash()}, "x", p.tick())
	if err != nil {
		t.Fatal(err)
	}
	if string(p.r.Snapshot()) != string(before) {
		t.Error("AnswerInvitation changed the receiver")
	}
	if len(evs) != 3 || evs[0].Kind != EventJoin || evs[1].Kind != EventRequest || evs[2].Kind != EventDecide {
		t.Fatalf("events %+v", evs)
	}
	if n.Party(SideB).Schema.Fingerprint() != n.Party(SideA).Schema.Fingerprint() || len(n.Party(SideB).Limits.List()) != 0 {
		t.Error("the person does not sit with the inviter's schema and no limits")
	}
	if n.Approval(SideB) != p.r.Table.Options[1].Hash() || len(n.Table.Options) != 1 || n.Turn != SideA {
		t.Errorf("room %+v", n)
	}
	p.r, p.events = n, append(p.events, evs...)
	p.replays()
	// The invitation is used now.
	_, _, err = p.r.AnswerInvitation(Answer{Verdict: VerdictJoin}, "y", p.tick())
	refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "the invitation has been used already")
}

func TestCheckTitleInvalidUTF8(t *testing.T) {
	err := CheckTitle("caf\xe9")
	refusedWith(t, nil, nil, err, CodeInvalidInput, "title: 1 to 120 characters of text")
}

func TestCardOptionLacksAndBreaches(t *testing.T) {
	a := []byte(`{"qty":{"type":"int","label":"Quantity"},"note":{"type":"string","label":"Note"},"fee":{"type":"money","label":"Fee","currency":"EUR","optional":true}}`)
	b := []byte(`{"qty":{"type":"int","label":"Menge"},"colour":{"type":"string","label":"Farbe"},"fee":{"type":"money","label":"Preis","currency":"EUR"}}`)
	p := openPlay(t, OpenRequest{Schema: a, Limits: []byte(`{"qty":{"max":3},"fee":{"max":{"amount":"10","currency":"EUR"}}}`)})
	p.join(b, nil)
	p.propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"qty":1,"note":"x"}`)})
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: []byte(`{"qty":5,"colour":"red","fee":{"amount":"12","currency":"EUR"}}`)})
	card := p.r.Card(SideA, true, time.UTC)
	o := card.Options[0]
	mine := p.r.Party(SideA)
	want := OutsideLimits(mine.Schema, mine.Limits, p.r.Party(SideB).Schema, p.r.Table.Options[0])
	if !reflect.DeepEqual(o.Breaches(), want) || len(want) != 2 {
		t.Errorf("breaches %v, want %v", o.Breaches(), want)
	}
	if got := o.TheirFields(); !reflect.DeepEqual(got, []string{"colour"}) {
		t.Errorf("their fields %v", got)
	}
	if got := o.MissingFields(); !reflect.DeepEqual(got, []string{"note"}) {
		t.Errorf("missing fields %v", got)
	}
	// The viewer's own terms carry no flags.
	if own := p.r.Card(SideB, true, time.UTC).Options[0]; own.Breaches() != nil {
		t.Errorf("own terms flagged: %v", own.Breaches())
	}
}

// TestRepeats: an answer repeats side's last move only when it is the same
// move and nothing came after it.
func TestRepeats(t *testing.T) {
	at := t0.Add(time.Hour)
	// A counter sent twice.
	p := joined(t, qty1)
	n, evs, err := p.r.Answer(SideB, Answer{Verdict: VerdictCounter, Terms: qty2}, "x", at)
	if err != nil {
		t.Fatal(err)
	}
	log := append(append([]Event{}, p.events...), evs...)
	if !n.Repeats(log, SideB, Answer{Verdict: VerdictCounter, Terms: qty2}) {
		t.Error("the same counter sent again does not repeat it")
	}
	if n.Repeats(log, SideB, Answer{Verdict: VerdictCounter, Terms: qty1}) || n.Repeats(log, SideA, Answer{Verdict: VerdictCounter, Terms: qty2}) ||
		n.Repeats(log, SideB, Answer{Verdict: VerdictApprove, Hash: n.Table.Options[0].Hash()}) {
		t.Error("other terms, the other side, or another verdict repeat the counter")
	}
	if p.r.Repeats(p.events, SideB, Answer{Verdict: VerdictCounter, Terms: qty1}) {
		t.Error("a's offer is repeated by b's counter of the same terms")
	}
	// The other side moved since: stale.
	h := n.Table.Options[0].Hash()
	asked, evReq, err := n.Request(SideA, VerdictApprove, h, "a1", at, Announced)
	if err != nil {
		t.Fatal(err)
	}
	if asked.Repeats(append(log, evReq), SideB, Answer{Verdict: VerdictCounter, Terms: qty2}) {
		t.Error("a counter repeats after the other side asked its human")
	}
	// Approve, reject and cancel sent twice.
	for _, v := range []Verdict{VerdictApprove, VerdictReject, VerdictCancel} {
		p := joined(t, qty1)
		h := p.r.Table.Options[0].Hash()
		n, evs, err := p.r.Answer(SideB, Answer{Verdict: v, Hash: h}, "x", at)
		if err != nil {
			t.Fatal(err)
		}
		log := append(append([]Event{}, p.events...), evs...)
		if !n.Repeats(log, SideB, Answer{Verdict: v, Hash: h}) {
			t.Errorf("%s sent again does not repeat it", v)
		}
		other := VerdictReject
		if v == VerdictReject {
			other = VerdictCancel
		}
		if n.Repeats(log, SideB, Answer{Verdict: other, Hash: h}) || n.Repeats(log, SideA, Answer{Verdict: v, Hash: h}) ||
			n.Repeats(log, SideB, Answer{Verdict: VerdictCounter, Terms: qty1}) {
			t.Errorf("%s: another verdict, the other side, or a counter repeats it", v)
		}
		if v == VerdictApprove && n.Repeats(log, SideB, Answer{Verdict: v, Hash: "sha256:other"}) {
			t.Error("an approval of other terms repeats it")
		}
	}
}

// TestAsksToConfirmAndTurnMove: what a human answering with no agent is
// asked, and which move of the other side passed them the turn.
func TestAsksToConfirmAndTurnMove(t *testing.T) {
	theirs := &Room{State: StateAwaiting, Turn: SideB, Table: &Table{By: SideA}}
	own := &Room{State: StateAwaiting, Turn: SideB, Table: &Table{By: SideB}}
	ownApproved := &Room{State: StateAwaiting, Turn: SideB, Table: &Table{By: SideB}, Approvals: [2]SubjectHash{"sha256:a", ""}}
	for _, c := range []struct {
		name string
		r    *Room
		want bool
	}{
		{"their terms, their turn", theirs, true},
		{"their own terms", own, false},
		{"their own terms, approved by the other side", ownApproved, true},
		{"not their turn", &Room{State: StateAwaiting, Turn: SideA, Table: &Table{By: SideA}}, false},
		{"nothing on the table", &Room{State: StateAwaiting, Turn: SideB}, false},
		{"agreed", &Room{State: StateAgreed, Turn: SideB, Table: &Table{By: SideA}}, false},
	} {
		if got := c.r.AsksToConfirm(SideB); got != c.want {
			t.Errorf("%s: AsksToConfirm %v, want %v", c.name, got, c.want)
		}
	}
	events := []Event{{Kind: EventPropose, Side: SideA, Verdict: VerdictOffer}, {Kind: EventPropose, Side: SideB, Verdict: VerdictCounter},
		{Kind: EventDecide, Side: SideA, Verdict: VerdictApprove, Outcome: ResultApplied}}
	if got := TurnMove(events, SideB); got != VerdictApprove {
		t.Errorf("after a released approval: %q", got)
	}
	if got := TurnMove(events[:2], SideB); got != VerdictOffer {
		t.Errorf("after an offer and their own counter: %q", got)
	}
	if got := TurnMove(events[1:2], SideB); got != "" {
		t.Errorf("after only their own move: %q", got)
	}
}

// TestRepeatedRequest: a request repeats side's last request of its kind
// (approve or reject; cancel) when it asks the same, whatever the room did
// since.
func TestRepeatedRequest(t *testing.T) {
	options := []json.RawMessage{qty1, qty2}
	start := func(t *testing.T, preapprove bool) *play {
		p := openPlay(t, OpenRequest{Options: options, Preapprove: preapprove, PreapprovalID: "pre"})
		p.join(qtySchema, nil)
		return p
	}
	h := start(t, false).r.Table.Hashes()
	for _, c := range []struct {
		name    string
		pre     bool // a's human was asked to preapprove at the open
		build   func(p *play)
		side    Side
		verdict Verdict
		hash    SubjectHash
		want    string // the id of the request repeated; "" none
	}{
		{"no earlier request", false, func(*play) {}, SideB, VerdictApprove, h[0], ""},
		{"the same approve, pending", false, func(p *play) { p.request(SideB, VerdictApprove, h[0], "b1") }, SideB, VerdictApprove, h[0], "b1"},
		{"an approve of other terms", false, func(p *play) { p.request(SideB, VerdictApprove, h[0], "b1") }, SideB, VerdictApprove, h[1], ""},
		{"a reject after an approve", false, func(p *play) { p.request(SideB, VerdictApprove, h[0], "b1") }, SideB, VerdictReject, "", ""},
		{"the same reject", false, func(p *play) { p.request(SideB, VerdictReject, "", "b1") }, SideB, VerdictReject, "", "b1"},
		{"a cancel after an approve", false, func(p *play) { p.request(SideB, VerdictApprove, h[0], "b1") }, SideB, VerdictCancel, "", ""},
		{"an approve behind a later cancel", false, func(p *play) {
			p.request(SideB, VerdictApprove, h[0], "b1")
			p.request(SideB, VerdictCancel, "", "b2")
		}, SideB, VerdictApprove, h[0], "b1"},
		{"the other side's request", false, func(p *play) { p.request(SideB, VerdictApprove, h[0], "b1") }, SideA, VerdictApprove, h[0], ""},
		{"the room moved on", false, func(p *play) {
			p.request(SideB, VerdictApprove, h[0], "b1")
			p.decide(SideB, "b1", true)
			p.propose(SideA, Move{Verdict: VerdictCounter, Subject: qty3})
		}, SideB, VerdictApprove, h[0], "b1"},
		{"a later approve of other terms", false, func(p *play) {
			p.request(SideB, VerdictApprove, h[0], "b1")
			p.decide(SideB, "b1", false)
			p.request(SideB, VerdictApprove, h[1], "b2")
		}, SideB, VerdictApprove, h[0], ""},
		{"a preapproval is no agent's request", true, func(*play) {}, SideA, VerdictPreapprove, "", ""},
		{"nor an approve", true, func(*play) {}, SideA, VerdictApprove, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, c.pre)
			c.build(p)
			ev, ok := RepeatedRequest(p.events, c.side, c.verdict, c.hash)
			got := ""
			if ok {
				got = ev.ConfirmationID
			}
			if got != c.want {
				t.Fatalf("repeats %q, want %q", got, c.want)
			}
			if ok && (ev.Kind != EventRequest || ev.Side != c.side || ev.Verdict != c.verdict || ev.Hash != c.hash) {
				t.Errorf("the request repeated: %+v", ev)
			}
		})
	}
}
