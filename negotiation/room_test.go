package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

var (
	t0        = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	qtySchema = []byte(`{"qty":{"type":"int","label":"Quantity"},"place":{"type":"enum","label":"Place","values":["office","video"],"optional":true}}`)
	qty1      = []byte(`{"qty":1}`)
	qty2      = []byte(`{"qty":2}`)
	qty3      = []byte(`{"qty":3}`)
)

// play is a room under test with the log of its events.
type play struct {
	t      *testing.T
	r      *Room
	events []Event
	limits [2][]byte
	at     time.Time
}

func openPlay(t *testing.T, req OpenRequest) *play {
	t.Helper()
	if req.Schema == nil && req.Slots == nil {
		req.Schema = qtySchema
	}
	r, events, _, err := Open(req, t0)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return &play{t: t, r: r, events: events, limits: [2][]byte{req.Limits}, at: t0}
}

// joined opens with qtySchema (and the opening subject, if any) and lets b join.
func joined(t *testing.T, subject []byte) *play {
	t.Helper()
	p := openPlay(t, OpenRequest{Subject: subject})
	p.join(qtySchema, nil)
	return p
}

func (p *play) tick() time.Time { p.at = p.at.Add(time.Minute); return p.at }

func (p *play) ok(r *Room, ev Event, err error) {
	p.t.Helper()
	if err != nil {
		p.t.Fatalf("%v", err)
	}
	p.r = r
	p.events = append(p.events, ev)
}

func (p *play) join(schema, limits []byte) {
	p.t.Helper()
	r, ev, err := p.r.Join(schema, limits, p.tick())
	p.ok(r, ev, err)
	p.limits[1] = limits
}

func (p *play) propose(side Side, m Move) {
	p.t.Helper()
	r, ev, err := p.r.Propose(side, m, p.tick())
	p.ok(r, ev, err)
}

func (p *play) request(side Side, v Verdict, h SubjectHash, id string) {
	p.t.Helper()
	r, ev, err := p.r.Request(side, v, h, id, p.tick(), Announced)
	p.ok(r, ev, err)
}

func (p *play) decide(side Side, id string, accept bool) (Result, string) {
	p.t.Helper()
	r, ev, why, err := p.r.Decide(side, id, pendingHash(p.r, side, id), accept, p.tick())
	p.ok(r, ev, err)
	return ev.Outcome, why
}

// confirm requests a human move and has the human accept it.
func (p *play) confirm(side Side, v Verdict, h SubjectHash) {
	p.t.Helper()
	id := "c" + string(side) + string(v)
	p.request(side, v, h, id)
	if res, why := p.decide(side, id, true); res != ResultApplied {
		p.t.Fatalf("%s %s: %s (%s)", side, v, res, why)
	}
}

// replays checks that the log replays to the room and the snapshot restores it.
func (p *play) replays() {
	p.t.Helper()
	again, err := Replay(p.events, p.limits)
	if err != nil {
		p.t.Fatalf("replay: %v", err)
	}
	if !bytes.Equal(again.Snapshot(), p.r.Snapshot()) {
		p.t.Fatalf("replay differs\n got %s\nwant %s", again.Snapshot(), p.r.Snapshot())
	}
	restored, err := Restore(p.r.Snapshot(), p.limits)
	if err != nil || !bytes.Equal(restored.Snapshot(), p.r.Snapshot()) {
		p.t.Fatalf("restore differs: %v", err)
	}
}

// refusedWith checks err's text and code, and that the room did not change.
func refusedWith(t *testing.T, before []byte, r *Room, err error, code Code, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want %s %q", err, code, msg)
	}
	if e.Code != code || e.Message != msg {
		t.Errorf("error %s %q, want %s %q", e.Code, e.Message, code, msg)
	}
	if before != nil && !bytes.Equal(before, r.Snapshot()) {
		t.Errorf("the refusal changed the room")
	}
}

func TestDue(t *testing.T) {
	day := 24 * time.Hour
	t.Run("an unanswered invitation expires at 72 hours", func(t *testing.T) {
		r := openPlay(t, OpenRequest{}).r
		if r.ExpiresAt != t0.Add(72*time.Hour) || r.Deadline != t0.Add(14*day) {
			t.Fatalf("expires %v, deadline %v", r.ExpiresAt, r.Deadline)
		}
		if reason, due := r.Due(r.ExpiresAt.Add(-time.Nanosecond)); due {
			t.Errorf("due (%s) before the invitation's end", reason)
		}
		if reason, due := r.Due(r.ExpiresAt); !due || reason != ClosedExpired {
			t.Errorf("at the invitation's end: %q %v, want expired", reason, due)
		}
		if reason, due := r.Due(r.Deadline.Add(day)); !due || reason != ClosedExpired {
			t.Errorf("after the deadline too: %q %v, want expired", reason, due)
		}
		before := r.Snapshot()
		_, _, err := r.Propose(SideA, Move{Verdict: VerdictOffer, Subject: qty1}, r.ExpiresAt)
		refusedWith(t, before, r, err, CodeRefused, "the invitation has expired")
		_, _, err = r.Join(qtySchema, nil, r.ExpiresAt)
		refusedWith(t, before, r, err, CodeRefused, "the invitation has expired")
		dueAtIs(t, r, r.ExpiresAt)
		closed, ev, err := r.CloseDue(r.ExpiresAt)
		if err != nil || closed.State != StateClosed || closed.ClosedReason != ClosedExpired || ev.Kind != EventClose || ev.Reason != ClosedExpired || closed.Turn != "" {
			t.Errorf("CloseDue: %v %+v %+v", err, closed, ev)
		}
	})
	t.Run("a deadline before the invitation's end lapses the draft", func(t *testing.T) {
		d := t0.Add(day)
		r := openPlay(t, OpenRequest{Deadline: &d}).r
		if reason, due := r.Due(d); !due || reason != ClosedLapsed {
			t.Errorf("at the deadline: %q %v, want lapsed", reason, due)
		}
		if reason, due := r.Due(r.ExpiresAt); !due || reason != ClosedLapsed {
			t.Errorf("at the invitation's end: %q %v, want lapsed", reason, due)
		}
		dueAtIs(t, r, d)
		_, _, err := r.Join(qtySchema, nil, d)
		refusedWith(t, r.Snapshot(), r, err, CodeRefused, "the deadline has passed")
	})
	t.Run("a deadline at the invitation's end lapses the draft", func(t *testing.T) {
		d := t0.Add(InvitationTTL)
		r := openPlay(t, OpenRequest{Deadline: &d}).r
		if reason, due := r.Due(d); !due || reason != ClosedLapsed {
			t.Errorf("%q %v, want lapsed", reason, due)
		}
	})
	t.Run("after the join only the deadline counts", func(t *testing.T) {
		r := joined(t, qty1).r
		if reason, due := r.Due(r.ExpiresAt.Add(day)); due {
			t.Errorf("a joined room is due (%s) after the invitation's end", reason)
		}
		if reason, due := r.Due(r.Deadline); !due || reason != ClosedLapsed {
			t.Errorf("at the deadline: %q %v, want lapsed", reason, due)
		}
		dueAtIs(t, r, r.Deadline)
		before := r.Snapshot()
		_, _, err := r.Propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2}, r.Deadline)
		refusedWith(t, before, r, err, CodeRefused, "the deadline has passed")
		_, _, err = r.CloseDue(r.Deadline.Add(-time.Second))
		refusedWith(t, before, r, err, CodeRefused, "room is not due to close")
	})
	t.Run("a finished room is never due", func(t *testing.T) {
		p := joined(t, qty1)
		h := p.r.Table.Options[0].Hash()
		p.confirm(SideB, VerdictApprove, h)
		p.confirm(SideA, VerdictApprove, h)
		if p.r.State != StateAgreed {
			t.Fatalf("state %s", p.r.State)
		}
		late := p.r.Deadline.Add(30 * day)
		if reason, due := p.r.Due(late); due {
			t.Errorf("agreed room due: %s", reason)
		}
		if at, ok := p.r.DueAt(); ok {
			t.Errorf("agreed room due at %s", at)
		}
		_, _, err := p.r.CloseDue(late)
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "room is agreed")
	})
}

// dueAtIs checks that r is first due at want: DueAt says so, and Due
// agrees just before and at that moment.
func dueAtIs(t *testing.T, r *Room, want time.Time) {
	t.Helper()
	at, ok := r.DueAt()
	if !ok || !at.Equal(want) {
		t.Errorf("DueAt %s %v, want %s", at, ok, want)
	}
	if _, due := r.Due(want.Add(-time.Nanosecond)); due {
		t.Errorf("due before %s", want)
	}
	if _, due := r.Due(want); !due {
		t.Errorf("not due at %s", want)
	}
}

func TestConfirmations(t *testing.T) {
	t.Run("a new request replaces the pending one", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "first")
		p.request(SideB, VerdictReject, "", "second")
		_, _, _, err := p.r.Decide(SideB, "first", "", true, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "this confirmation is no longer pending")
		_, _, _, err = p.r.Decide(SideA, "second", "", true, p.tick())
		refusedWith(t, p.r.Snapshot(), p.r, err, CodeRefused, "this confirmation is no longer pending")
		if res, _ := p.decide(SideB, "second", true); res != ResultApplied || p.r.State != StateClosed || p.r.ClosedReason != ClosedRejected {
			t.Errorf("%s: %s %s", res, p.r.State, p.r.ClosedReason)
		}
		p.replays()
	})
	t.Run("a decline changes nothing but the pending", func(t *testing.T) {
		p := joined(t, qty1)
		before := *p.r
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		if res, why := p.decide(SideB, "b1", false); res != ResultDeclined || why != "" {
			t.Errorf("%s %q", res, why)
		}
		if p.r.PendingFor(SideB) != nil || p.r.Approval(SideB) != "" || p.r.Turn != before.Turn || p.r.Round != before.Round || p.r.State != StateAwaiting {
			t.Errorf("room after a decline: %+v", p.r)
		}
		p.replays()
	})
	t.Run("a counter voids the approvals and the pending approve, not a pending cancel", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideA, VerdictCancel, "", "a-cancel")
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b-approve")
		p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
		if p.r.PendingFor(SideB) != nil || p.r.PendingFor(SideA) == nil {
			t.Fatalf("pending a %v, b %v", p.r.PendingFor(SideA), p.r.PendingFor(SideB))
		}
		if res, _ := p.decide(SideA, "a-cancel", true); res != ResultApplied || p.r.ClosedReason != ClosedCancelled {
			t.Errorf("%s %s", res, p.r.ClosedReason)
		}
		p.replays()
	})
	t.Run("an answer after the deadline is void", func(t *testing.T) {
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		r, ev, why, err := p.r.Decide(SideB, "b1", p.r.Table.Options[0].Hash(), true, p.r.Deadline)
		if err != nil || ev.Outcome != ResultVoid || why != "the deadline has passed" {
			t.Fatalf("%v %s %q", err, ev.Outcome, why)
		}
		if r.PendingFor(SideB) != nil || r.Approval(SideB) != "" || r.State != StateAwaiting {
			t.Errorf("a void answer changed the room: %+v", r)
		}
	})
	t.Run("an answer bound to an older table is void", func(t *testing.T) {
		// No move leaves an approve pending across a new table (a counter
		// voids it), so the stale confirmation is made by hand here.
		p := joined(t, qty1)
		p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
		stale := *p.r.PendingFor(SideB)
		stale.TableRound = p.r.Table.Round - 1
		r := p.r.clone()
		r.Pending[1] = &stale
		n, ev, why, err := r.Decide(SideB, "b1", stale.SubjectHash, true, p.tick())
		if err != nil || ev.Outcome != ResultVoid || why != "the terms on the table changed" || n.Approval(SideB) != "" {
			t.Errorf("%v %s %q", err, ev.Outcome, why)
		}
	})
	t.Run("approving an option narrows the table and drops the other option's approval", func(t *testing.T) {
		p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2, qty3}})
		p.join(qtySchema, nil)
		hashes := p.r.Table.Hashes()
		if len(hashes) != 3 || hashes[1] != p.r.Table.Options[1].Hash() {
			t.Fatalf("hashes %v", hashes)
		}
		if o, ok := p.r.Table.Find(hashes[2]); !ok || o != p.r.Table.Options[2] {
			t.Error("Find does not find the third option")
		}
		if _, ok := p.r.Table.Find("sha256:none"); ok {
			t.Error("Find found a hash that is not on the table")
		}
		p.confirm(SideB, VerdictApprove, hashes[1])
		if got := p.r.Table.Hashes(); !slices.Equal(got, hashes[1:2]) || !p.r.Table.AsOptions {
			t.Errorf("table after the pick: %v", got)
		}
		if p.r.Approval(SideB) != hashes[1] || p.r.Approval(SideA) != "" || p.r.Turn != SideA || p.r.Round != 1 {
			t.Errorf("approvals %v turn %s round %d", p.r.Approvals, p.r.Turn, p.r.Round)
		}
		p.confirm(SideA, VerdictApprove, hashes[1])
		if p.r.State != StateAgreed || p.r.Turn != "" || p.r.Pending != [2]*Confirmation{} {
			t.Errorf("room %+v", p.r)
		}
		p.replays()
	})
}

func TestPartyAccessors(t *testing.T) {
	p := openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":1}}`)})
	a := p.r.Party(SideA)
	if a.Schema == nil || a.Limits == nil || string(a.Limits.Raw()) != `{"qty":{"min":1}}` {
		t.Fatalf("a's party %+v", a)
	}
	if b := p.r.Party(SideB); b.Schema != nil || b.Limits != nil {
		t.Errorf("b's party before the join: %+v", b)
	}
	p.join([]byte(`{"qty":{"type":"int","label":"Anzahl"}}`), nil)
	if f, _ := p.r.Party(SideB).Schema.Field("qty"); f.Label != "Anzahl" {
		t.Errorf("b's field %+v", f)
	}
	if string(p.r.Party(SideB).Limits.Raw()) != "{}" || p.r.Party(SideB).Limits.List() != nil {
		t.Errorf("b's limits %s", p.r.Party(SideB).Limits.Raw())
	}
	if SideA.Other() != SideB || SideB.Other() != SideA {
		t.Error("Other")
	}
	if StateDraft.Terminal() || StateAwaiting.Terminal() || !StateAgreed.Terminal() || !StateClosed.Terminal() {
		t.Error("Terminal")
	}
	if p.r.Card(SideA, false, time.UTC) != nil {
		t.Error("a card with nothing on the table")
	}
}

// TestCounterIsDifferentTerms: a counter with the terms already on the
// table (in any order, as options too) is refused, naming the place, and
// changes nothing: it would only void the approvals (seed 001: "counter:
// different terms"). Different terms pass.
func TestCounterIsDifferentTerms(t *testing.T) {
	p := openPlay(t, OpenRequest{})
	p.join(qtySchema, nil)
	p.propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"qty":3}`)})
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: []byte(`{"qty":4}`)})
	p.confirm(SideA, VerdictApprove, p.r.Table.Options[0].Hash())
	before := p.r
	_, _, err := p.r.Propose(SideB, Move{Verdict: VerdictCounter, Subject: []byte(`{ "qty" : 4 }`)}, p.tick())
	if e, ok := err.(*Error); !ok || e.Message != "subject: the same terms as on the table; to accept them, approve their subject_hash with negotiation_respond" {
		t.Fatalf("the same counter: %v", err)
	}
	if p.r != before || p.r.Approval(SideA) == "" {
		t.Fatal("a refused counter changed the room")
	}
	p.propose(SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{[]byte(`{"qty":5}`), []byte(`{"qty":6}`)}})
	p.propose(SideA, Move{Verdict: VerdictCounter, Subject: []byte(`{"qty":5}`)}) // narrowing is different terms
	p.propose(SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{[]byte(`{"qty":6}`), []byte(`{"qty":5}`)}})
	_, _, err = p.r.Propose(SideA, Move{Verdict: VerdictCounter, Options: []json.RawMessage{[]byte(`{"qty":5}`), []byte(`{"qty":6}`)}}, p.tick())
	if e, ok := err.(*Error); !ok || !strings.HasPrefix(e.Message, "options: the same terms as on the table") {
		t.Fatalf("the same options in another order: %v", err)
	}
}

// TestNextTellsOfADecline: a decline leaves the room unchanged and tells
// the agent in next (DESIGN §2), as does an answer that came too late; both
// go once the side asks again or the room moves, and survive a snapshot and
// a replay.
func TestNextTellsOfADecline(t *testing.T) {
	p := openPlay(t, OpenRequest{})
	p.join(qtySchema, nil)
	p.propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"qty":3}`)})
	h := p.r.Table.Options[0].Hash()
	before := p.r.Next(SideB).Say
	p.request(SideB, VerdictApprove, h, "c1")
	if _, why := p.decide(SideB, "c1", false); why != "" {
		t.Fatal(why)
	}
	declined := "Your human declined to approve the terms " + string(h) + ": do not ask them again for the same without something new. "
	if got := p.r.Next(SideB).Say; got != declined+before {
		t.Fatalf("next after the decline:\n%s\nwant\n%s", got, declined+before)
	}
	if got := p.r.Next(SideA).Say; strings.Contains(got, "declined") {
		t.Errorf("the other side is told of it: %s", got)
	}
	restored, err := Restore(p.r.Snapshot(), [2][]byte{})
	if err != nil || restored.Next(SideB).Say != declined+before {
		t.Fatalf("after a snapshot: %v %q", err, restored.Next(SideB).Say)
	}
	replayed, err := Replay(p.events, [2][]byte{})
	if err != nil || string(replayed.Snapshot()) != string(p.r.Snapshot()) {
		t.Fatalf("replayed: %v\n%s\n%s", err, replayed.Snapshot(), p.r.Snapshot())
	}
	p.request(SideB, VerdictApprove, h, "c2")
	if got := p.r.Next(SideB).Say; strings.Contains(got, "declined") {
		t.Errorf("asked again, still told of the decline: %s", got)
	}
	// A yes after the deadline: void, and said so.
	n, _, why, err := p.r.Decide(SideB, "c2", h, true, p.r.Deadline.Add(time.Minute))
	if err != nil || why == "" {
		t.Fatalf("a yes after the deadline: %v %q", err, why)
	}
	if a := n.Answered[SideB.index()]; a == nil || a.Result != ResultVoid || a.Why != why {
		t.Errorf("kept after a void answer: %+v", a)
	}
	if got := n.Next(SideB).Say; !strings.HasPrefix(got, "Your human's answer to the request to approve the terms "+string(h)+" came too late and applied to nothing ("+why+").") {
		t.Errorf("next after a void answer: %s", got)
	}
	// The room moves on: nothing more to tell (of a decline told until then).
	p.decide(SideB, "c2", false)
	if p.r.Answered[SideB.index()] == nil {
		t.Fatalf("the second decline is not kept")
	}
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: []byte(`{"qty":4}`)})
	if p.r.Answered != [2]*HumanAnswer{} {
		t.Errorf("after a counter: %+v", p.r.Answered)
	}
}
