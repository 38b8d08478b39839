package negotiation

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every verdict a sentence names is one the side is offered, and none is
// named that is not: with a cool-down holding the counter back, "counter"
// is in neither.
func TestSayAgreesWithVerdicts(t *testing.T) {
	p := joined(t, qty1)
	pace := Pace{Cooldown: time.Hour}
	last := p.at
	for _, side := range []Side{SideA, SideB} {
		n, coolEnd := pace.Next(p.r, side, last, p.at.Add(time.Second))
		if side == SideB {
			if coolEnd == nil || slices.Contains(n.Verdicts, VerdictCounter) {
				t.Fatalf("b in the cool-down: %v %v", n, coolEnd)
			}
			if strings.Contains(strings.Split(n.Say, " You may counter again")[0], "counter") {
				t.Errorf("b's sentence names counter, its verdicts do not: %q", n.Say)
			}
		}
		for _, v := range []Verdict{VerdictApprove, VerdictCounter, VerdictReject} {
			named := strings.Contains(strings.ReplaceAll(n.Say, "counter again", ""), string(v))
			if named != slices.Contains(n.Verdicts, v) && side == SideB {
				t.Errorf("%s: %q names %s: %t; verdicts %v", side, n.Say, v, named, n.Verdicts)
			}
		}
	}
	// The other side approved: the sentence drops "or counter" too.
	p.confirm(SideB, VerdictApprove, p.r.Table.Options[0].Hash())
	n, _ := pace.Next(p.r, SideA, p.at, p.at.Add(time.Second))
	if strings.Contains(n.Say, "or counter") || slices.Contains(n.Verdicts, VerdictCounter) {
		t.Errorf("a after b approved, in the cool-down: %v", n)
	}
}

// With no deal possible only on a field either side may leave out, a deal
// without it is still possible: next says so, and still offers the turn.
func TestNextWithNoDealPossibleOnAnOptionalField(t *testing.T) {
	p := openPlay(t, OpenRequest{Limits: []byte(`{"place":{"one_of":["office"]}}`)})
	p.join(qtySchema, []byte(`{"place":{"one_of":["video"]}}`))
	if !slices.Equal(p.r.NoDeal, []string{"place"}) {
		t.Fatalf("no deal %v", p.r.NoDeal)
	}
	a := p.r.Next(SideA)
	if !strings.HasPrefix(a.Say, "No deal is possible on place with a value: ") ||
		!strings.Contains(a.Say, "it is optional, so terms that leave it out can still agree") ||
		strings.Contains(a.Say, "any terms break") || !strings.HasSuffix(a.Say, "Your turn: offer terms.") {
		t.Errorf("next %q", a.Say)
	}
	// Two such fields: the sentence speaks of both.
	both := []byte(`{"qty":{"type":"int","label":"Quantity","optional":true},"place":{"type":"enum","label":"Place","values":["office","video"],"optional":true}}`)
	p = openPlay(t, OpenRequest{Schema: both, Limits: []byte(`{"qty":{"min":10},"place":{"one_of":["office"]}}`)})
	p.join(both, []byte(`{"qty":{"max":5},"place":{"one_of":["video"]}}`))
	if a := p.r.Next(SideA); !strings.HasPrefix(a.Say, "No deal is possible on place, qty with a value: ") ||
		!strings.Contains(a.Say, "they are optional, so terms that leave them out can still agree") {
		t.Errorf("next %q", a.Say)
	}
	// With a required field blocked too, no terms can agree.
	p = openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":10},"place":{"one_of":["office"]}}`)})
	p.join(qtySchema, []byte(`{"qty":{"max":5},"place":{"one_of":["video"]}}`))
	if a := p.r.Next(SideA); !strings.HasPrefix(a.Say, "No deal is possible on place, qty: ") || !strings.Contains(a.Say, "any terms break one side's limits") {
		t.Errorf("next %q", a.Say)
	}
}

// With no deal possible, next says which fields block and the ways out,
// never "offer terms" as if an agreement could be reached.
func TestNextWithNoDealPossible(t *testing.T) {
	p := openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":10}}`)})
	p.join(qtySchema, []byte(`{"qty":{"max":5}}`))
	if !slices.Equal(p.r.NoDeal, []string{"qty"}) {
		t.Fatalf("no deal %v", p.r.NoDeal)
	}
	a, b := p.r.Next(SideA), p.r.Next(SideB)
	for _, n := range []Next{a, b} {
		if !strings.HasPrefix(n.Say, "No deal is possible on qty:") || !strings.Contains(n.Say, "cancel") || !slices.Contains(n.Verdicts, VerdictCancel) {
			t.Errorf("next %v", n)
		}
	}
	if !strings.HasSuffix(a.Say, "opening a new one). Your turn: offer terms.") {
		t.Errorf("a's turn: %q", a.Say)
	}
	if !strings.HasSuffix(b.Say, "It is the other side's turn: wait for their move.") {
		t.Errorf("b waits: %q", b.Say)
	}
}

func TestAdvise(t *testing.T) {
	tempo := Tempo{Human: 90 * time.Second, Agent: 7 * time.Second}
	pace := Pace{Cooldown: 2 * time.Second}
	p := joined(t, qty1)
	at := p.at.Add(300 * time.Millisecond)
	check := func(name string, side Side, last time.Time, want time.Time) {
		t.Helper()
		n, _ := pace.Advise(p.r, side, last, at, tempo)
		switch {
		case want.IsZero() && n.CheckAfter != nil:
			t.Errorf("%s: check_after %v, want none (%v)", name, n.CheckAfter, n)
		case !want.IsZero() && (n.CheckAfter == nil || !n.CheckAfter.Equal(want)):
			t.Errorf("%s: check_after %v, want %v", name, n.CheckAfter, want)
		}
		// Waiting is what the doors hold a read open on: a side waits
		// exactly when it has a moment to look again.
		if n.Waiting() != !want.IsZero() {
			t.Errorf("%s: Waiting() = %v with check_after %v", name, n.Waiting(), n.CheckAfter)
		}
	}
	up := func(t time.Time) time.Time { return t.Truncate(time.Second).Add(time.Second) }
	// a tabled qty1; b's turn, free to act; a waits for b's agent.
	check("b may act", SideB, time.Time{}, time.Time{})
	check("a waits for b's agent", SideA, p.at, up(at.Add(7*time.Second)))
	// b countered just now: a may act, but its counter waits for the cool-down.
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
	at = p.at.Add(500 * time.Millisecond)
	check("a in its cool-down", SideA, p.at, p.at.Add(2*time.Second))
	check("a past its cool-down", SideA, p.at.Add(-time.Minute), time.Time{})
	// a asked its human: a waits for a human, and so does b.
	p.request(SideA, VerdictApprove, p.r.Table.Options[0].Hash(), "a1")
	at = p.at
	check("a's human asked", SideA, time.Time{}, at.Add(90*time.Second))
	check("b waits for a's human", SideB, time.Time{}, at.Add(90*time.Second))
	// Never after the deadline.
	p.r.Deadline = at.Add(30 * time.Second)
	check("deadline first", SideA, time.Time{}, at.Add(30*time.Second))
}

func TestTempoOf(t *testing.T) {
	events := []Event{
		{Kind: EventRequest, ConfirmationID: "1", At: t0},
		{Kind: EventDecide, ConfirmationID: "1", At: t0.Add(40 * time.Second)},
		{Kind: EventRequest, ConfirmationID: "2", At: t0.Add(time.Hour)},
		{Kind: EventDecide, ConfirmationID: "2", At: t0.Add(time.Hour + 10*time.Second)},
		{Kind: EventRequest, ConfirmationID: "3", At: t0.Add(2 * time.Hour)},
		{Kind: EventDecide, ConfirmationID: "3", At: t0.Add(2*time.Hour + 20*time.Second)},
		{Kind: EventRequest, ConfirmationID: "4", At: t0.Add(3 * time.Hour)}, // unanswered
	}
	if got := TempoOf(events, DefaultTempo); got.Human != 20*time.Second || got.Agent != DefaultTempo.Agent {
		t.Errorf("TempoOf: %+v", got)
	}
	if got := TempoOf(events[6:], DefaultTempo); got != DefaultTempo {
		t.Errorf("TempoOf with nothing answered: %+v", got)
	}
	// A decision stamped before its request (a node's clock behind) tells
	// nothing of how long the human took.
	skewed := []Event{
		{Kind: EventRequest, ConfirmationID: "5", At: t0},
		{Kind: EventDecide, ConfirmationID: "5", At: t0.Add(-10 * time.Second)},
	}
	if got := TempoOf(skewed, DefaultTempo); got != DefaultTempo {
		t.Errorf("TempoOf of a decision before its request: %+v", got)
	}
}

func TestWindow(t *testing.T) {
	for _, c := range []struct {
		n       int
		history bool
		want    int
	}{{0, false, 0}, {1, false, 0}, {2, false, 1}, {10, false, 9}, {10, true, 0}} {
		if got := Window(c.n, c.history); got != c.want {
			t.Errorf("Window(%d, %t) = %d, want %d", c.n, c.history, got, c.want)
		}
	}
}

// TestNextAfterAQuestionOnAStandingApproval: b's human approved a's terms
// and a asked for more detail instead of approving; b is not sent to ask
// its human to approve the same terms again, which would only pass the
// turn back.
func TestNextAfterAQuestionOnAStandingApproval(t *testing.T) {
	p := openPlay(t, OpenRequest{Subject: qty1})
	p.join(qtySchema, nil)
	h := p.r.Table.Options[0].Hash()
	p.confirm(SideB, VerdictApprove, h)
	p.propose(SideA, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
	n := p.r.Next(SideB)
	if want := "Your human's approval of " + string(h) + " stands; the other side asked for more detail instead of approving. " +
		"Answer them: counter with the detail they asked for, ask for more detail, reject or cancel; approving again changes nothing."; n.Say != want {
		t.Errorf("next %q\nwant %q", n.Say, want)
	}
}

// An agreed room's card neither asks for an approval nor says no deal was
// possible: the agreed terms settled both (the humans approved them).
func TestAgreedCardSaysNothingStale(t *testing.T) {
	p := openPlay(t, OpenRequest{Limits: []byte(`{"place":{"one_of":["office"]}}`)})
	p.join(qtySchema, []byte(`{"place":{"one_of":["video"]}}`))
	p.propose(SideA, Move{Verdict: VerdictOffer, Subject: qty1})
	h := p.r.Table.Options[0].Hash()
	p.confirm(SideB, VerdictApprove, h)
	before := p.r.Card(SideA, true, time.UTC)
	if !before.Options[0].TheyApproved || len(before.NoDeal) != 1 || len(p.r.NoDealNotes(SideA)) != 1 {
		t.Fatalf("before a approves: they approved %v, no deal %v", before.Options[0].TheyApproved, before.NoDeal)
	}
	p.confirm(SideA, VerdictApprove, h)
	if p.r.State != StateAgreed {
		t.Fatalf("state %s", p.r.State)
	}
	for _, side := range []Side{SideA, SideB} {
		c := p.r.Card(side, true, time.UTC)
		if c.Options[0].TheyApproved || len(c.NoDeal) > 0 || len(p.r.NoDealNotes(side)) > 0 {
			t.Errorf("%s's agreed card: they approved %v, no deal %v", side, c.Options[0].TheyApproved, c.NoDeal)
		}
		for _, f := range c.Options[0].Fields {
			if f.NoDeal {
				t.Errorf("%s's agreed card marks %s no deal", side, f.Name)
			}
		}
	}
}

// TestAdviseWaitsOnlyWhenTheSideMust: a side told to wait is told when
// to look again, by whose answer it waits for; a side that may act now,
// or has nothing more to do, is given no check_after. The opener of a
// draft waits for the invitee's human; the side whose turn it is may act
// while the other side's human is asked for a preapproval; a room past
// its deadline is closing, with no moment to look again.
func TestAdviseWaitsOnlyWhenTheSideMust(t *testing.T) {
	tempo := Tempo{Human: 90 * time.Second, Agent: 7 * time.Second}
	p := openPlay(t, OpenRequest{Subject: qty1})
	if n, _ := (Pace{}).Advise(p.r, SideA, time.Time{}, p.at, tempo); n.CheckAfter == nil || !n.CheckAfter.Equal(p.at.Add(90*time.Second)) {
		t.Errorf("the opener of a draft: check_after %v, want the invitee's human's tempo, %v", n.CheckAfter, p.at.Add(90*time.Second))
	}

	p = openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}, Preapprove: true, PreapprovalID: "pre"})
	p.join(qtySchema, nil)
	if p.r.Turn != SideB || p.r.PendingFor(SideA) == nil {
		t.Fatalf("want b's turn with a's preapproval asked: turn %s", p.r.Turn)
	}
	if n, _ := (Pace{}).Advise(p.r, SideB, time.Time{}, p.at, tempo); n.CheckAfter != nil || len(n.Verdicts) == 0 {
		t.Errorf("b on its turn, a's human asked: %v, check_after %v, want verdicts and no check_after", n.Verdicts, n.CheckAfter)
	}

	p = joined(t, qty1)
	p.r.Deadline = p.at.Add(-time.Second)
	if n, _ := (Pace{}).Advise(p.r, SideA, time.Time{}, p.at, tempo); n.CheckAfter != nil || len(n.Verdicts) != 0 {
		t.Errorf("a room past its deadline: %v, check_after %v, want nothing to do and no check_after", n.Verdicts, n.CheckAfter)
	}
}

// TestTempoOfOneAnswer: one answered confirmation is the room's tempo (the
// default holds only while none was answered), and a human who answered
// at once is given a second, so a side is never told to look again at the
// same moment.
func TestTempoOfOneAnswer(t *testing.T) {
	one := []Event{
		{Kind: EventRequest, ConfirmationID: "1", At: t0},
		{Kind: EventDecide, ConfirmationID: "1", At: t0.Add(40 * time.Second)},
	}
	if got := TempoOf(one, DefaultTempo); got.Human != 40*time.Second {
		t.Errorf("TempoOf of one answer in 40 s: %+v", got)
	}
	at := []Event{
		{Kind: EventRequest, ConfirmationID: "1", At: t0},
		{Kind: EventDecide, ConfirmationID: "1", At: t0.Add(200 * time.Millisecond)},
	}
	if got := TempoOf(at, DefaultTempo); got.Human != time.Second {
		t.Errorf("TempoOf of an answer in 200 ms: %+v, want a second", got)
	}
}

// TestLastTabled: when a side last offered or countered, read from the
// end of the log: its latest counter after its opening offer, never the
// other side's move; zero for a side that never tabled terms.
func TestLastTabled(t *testing.T) {
	p := joined(t, qty1)
	offered := p.at
	if got := LastTabled(p.events, SideB); !got.IsZero() {
		t.Errorf("b before it tabled anything: %v, want zero", got)
	}
	if got := LastTabled(p.events, SideA); got.IsZero() || got.After(offered) {
		t.Errorf("a after its opening offer: %v", got)
	}
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
	bCountered := p.at
	p.propose(SideA, Move{Verdict: VerdictCounter, Subject: qty1})
	aCountered := p.at
	if got := LastTabled(p.events, SideA); !got.Equal(aCountered) {
		t.Errorf("a after its counter: %v, want %v", got, aCountered)
	}
	if got := LastTabled(p.events, SideB); !got.Equal(bCountered) {
		t.Errorf("b after its counter: %v, want %v", got, bCountered)
	}
}

// TestAdviseReturnsTheCoolDownsEnd: Advise's second result is Pace.Next's,
// the end of the cool-down holding a counter back.
func TestAdviseReturnsTheCoolDownsEnd(t *testing.T) {
	p := joined(t, qty1)
	p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
	pace := Pace{Cooldown: time.Hour}
	// a's turn, its last counter (as if) a moment ago.
	_, want := pace.Next(p.r, SideA, p.at, p.at.Add(time.Second))
	n, got := pace.Advise(p.r, SideA, p.at, p.at.Add(time.Second), DefaultTempo)
	if want == nil || got == nil || !got.Equal(*want) {
		t.Errorf("Advise's cool-down end %v, Next's %v (next %v)", got, want, n)
	}
}
