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
		return refused(fmt.Sprintf("this room reached its cap of %d rounds: approve, reject or cancel", p.MaxRounds))
	}
	if v == VerdictCounter {
		if next := p.NextCounterAt(lastTabled); at.Before(next) {
			return refused("too soon for another counter: the next is allowed from " + next.UTC().Format(time.RFC3339))
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

// Next is Room.Next with the pace applied: once the round cap is reached
// only approve, reject and cancel remain; while the side's cool-down runs,
// counter is left out and the sentence says from when it is allowed, which
// is returned too (nil when a counter is not held back by the cool-down).
func (p Pace) Next(r *Room, side Side, lastTabled, at time.Time) (Next, *time.Time) {
	n := r.Next(side)
	if r.State.Terminal() || len(n.Verdicts) == 0 {
		return n, nil
	}
	if p.capped(r) && slices.ContainsFunc(n.Verdicts, tabling) {
		n.Verdicts = slices.DeleteFunc(slices.Clone(n.Verdicts), tabling)
		n.Say += fmt.Sprintf(" This room reached its cap of %d rounds: no more offers, counters or questions; approve, reject or cancel.", p.MaxRounds)
		return n, nil
	}
	next := p.NextCounterAt(lastTabled)
	if !at.Before(next) || !slices.Contains(n.Verdicts, VerdictCounter) {
		return n, nil
	}
	n.Verdicts = slices.DeleteFunc(slices.Clone(n.Verdicts), func(v Verdict) bool { return v == VerdictCounter })
	n.Say += " You may counter again from " + next.UTC().Format(time.RFC3339) + "."
	return n, &next
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
