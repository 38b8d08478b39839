package negotiation

import (
	"fmt"
	"slices"
	"time"
)

// Pace bounds how long and how fast a room may go, against a counter-agent
// that floods a room with moves: a cap on rounds, and a cool-down between
// one side's counters. It is the service's policy, not the protocol: the
// vectors do not hold it and Replay does not apply it, so changing it never
// makes a stored room disagree with its log. The zero Pace allows anything.
type Pace struct {
	// MaxRounds: no offer, counter or need_more_detail once the room is at
	// this round (approve, reject and cancel stay open). 0: no cap.
	MaxRounds int
	// Cooldown: a side's counter must come at least this long after its
	// own latest offer or counter. 0: none.
	Cooldown time.Duration
}

// tabling reports whether v adds a round.
func tabling(v Verdict) bool {
	return v == VerdictOffer || v == VerdictCounter || v == VerdictNeedMoreDetail
}

// Check refuses a move the pace does not allow at `at`. lastTabled is when
// side last offered or countered (zero: never).
func (p Pace) Check(r *Room, side Side, v Verdict, lastTabled, at time.Time) error {
	if !tabling(v) {
		return nil
	}
	if p.capped(r) {
		return refused("rule.rounds_cap", plural(p.MaxRounds, "this room reached its cap of %d round: approve, reject or cancel", "this room reached its cap of %d rounds: approve, reject or cancel"), p.MaxRounds)
	}
	if v == VerdictCounter {
		if next := p.NextCounterAt(lastTabled); at.Before(next) {
			return refused("rule.too_soon", "too soon for another counter: the next is allowed from %s", next.UTC().Format(time.RFC3339))
		}
	}
	return nil
}

func (p Pace) capped(r *Room) bool { return p.MaxRounds > 0 && r.Round >= p.MaxRounds }

// NextCounterAt is the first moment a side that last offered or countered
// at lastTabled may counter again: rounded up to the second, so that the
// moment the room shows is itself allowed. Zero when there is no cool-down.
func (p Pace) NextCounterAt(lastTabled time.Time) time.Time {
	if p.Cooldown <= 0 || lastTabled.IsZero() {
		return time.Time{}
	}
	next := lastTabled.Add(p.Cooldown)
	if t := next.Truncate(time.Second); !t.Equal(next) {
		next = t.Add(time.Second)
	}
	return next
}

// Next is Room.Next at `at` with the pace applied: a room due to close
// (Due) takes nothing more, though the sweep has not closed it yet; once
// the round cap is reached only approve, reject and cancel remain; while
// the side's cool-down runs, counter is left out (and never named) and
// the sentence says from when it is allowed, which is returned too (nil
// when a counter is not held back by the cool-down).
func (p Pace) Next(r *Room, side Side, lastTabled, at time.Time) (Next, *time.Time) {
	if reason, due := r.Due(at); due {
		why := "The deadline has passed"
		if reason == ClosedExpired {
			why = "The invitation has expired"
		}
		return Next{Verdicts: []Verdict{}, Say: why + ": the room is closing (" + string(reason) + "). Nothing more to do."}, nil
	}
	n := r.Next(side)
	if r.State.Terminal() || len(n.Verdicts) == 0 {
		return n, nil
	}
	if p.capped(r) && slices.ContainsFunc(n.Verdicts, tabling) {
		n = r.next(side, func(v Verdict) bool { return !tabling(v) })
		n.Say += fmt.Sprintf(plural(p.MaxRounds, " This room reached its cap of %d round", " This room reached its cap of %d rounds")+": no more offers, counters or questions; approve, reject or cancel.", p.MaxRounds)
		return n, nil
	}
	next := p.NextCounterAt(lastTabled)
	if !at.Before(next) || !slices.Contains(n.Verdicts, VerdictCounter) {
		return n, nil
	}
	n = r.next(side, func(v Verdict) bool { return v != VerdictCounter })
	n.Say += " You may counter again from " + next.UTC().Format(time.RFC3339) + "."
	return n, &next
}

// Tempo is how long a room's parties usually take to answer: its humans
// (a confirmation), and an agent (a move once it is its turn).
type Tempo struct {
	Human, Agent time.Duration
}

// DefaultTempo is the tempo assumed where a room's log tells nothing yet.
var DefaultTempo = Tempo{Human: 2 * time.Minute, Agent: 10 * time.Second}

// TempoOf is how long this room's humans took to answer their
// confirmations (the median; def.Human when none was answered yet), with
// def.Agent for agents.
func TempoOf(events []Event, def Tempo) Tempo {
	asked := map[string]time.Time{}
	var took []time.Duration
	for i := range events {
		ev := &events[i]
		switch ev.Kind {
		case EventRequest:
			asked[ev.ConfirmationID] = ev.At
		case EventDecide:
			if at, ok := asked[ev.ConfirmationID]; ok && !ev.At.Before(at) {
				took = append(took, ev.At.Sub(at))
			}
		}
	}
	t := def
	if len(took) > 0 {
		slices.Sort(took)
		t.Human = max(took[len(took)/2], time.Second)
	}
	return t
}

// Advise is Next with the pace applied (Pace.Next) and, when the side has
// to wait, when to look again (Next.CheckAfter, whole seconds, never after
// the deadline): the cool-down's end when it holds a counter back, the
// tempo of a human when one is asked (the side's own, or the other side's
// on its turn) or the invitation waits, of an agent when it is the other
// side's turn. The second result is the cool-down's end, as Pace.Next's.
func (p Pace) Advise(r *Room, side Side, lastTabled, at time.Time, t Tempo) (Next, *time.Time) {
	n, coolEnd := p.Next(r, side, lastTabled, at)
	if r.State.Terminal() || len(n.Verdicts) == 0 {
		return n, coolEnd
	}
	var after time.Time
	switch {
	case r.State == StateDraft:
		after = at.Add(t.Human) // the invitee opens their invitation
	case r.PendingFor(side) != nil:
		after = at.Add(t.Human)
	case r.Turn != side && r.PendingFor(side.Other()) != nil:
		after = at.Add(t.Human)
	case r.Turn != side:
		after = at.Add(t.Agent)
	case coolEnd != nil:
		after = *coolEnd
	default:
		return n, coolEnd
	}
	if r.Deadline.Before(after) {
		after = r.Deadline
	}
	if s := after.Truncate(time.Second); !s.Equal(after) {
		after = s.Add(time.Second)
	}
	after = after.UTC()
	n.CheckAfter = &after
	return n, coolEnd
}

// LastTabled is when side last offered or countered, from the room's log
// (zero: never).
func LastTabled(events []Event, side Side) time.Time {
	for i := len(events) - 1; i >= 0; i-- {
		ev := &events[i]
		if ev.Kind == EventPropose && ev.Side == side && (ev.Verdict == VerdictOffer || ev.Verdict == VerdictCounter) {
			return ev.At
		}
	}
	return time.Time{}
}
