package negotiation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// agentVerdicts is every verdict an agent may send (propose or respond).
var agentVerdicts = []Verdict{VerdictOffer, VerdictCounter, VerdictNeedMoreDetail, VerdictApprove, VerdictReject, VerdictCancel}

// truthCandidates are terms tried for offer and counter: some fit the
// quantity schema (within and outside the limits the cases use), some the
// slots schema; a move is accepted if any valid one is.
var truthCandidates = func() []json.RawMessage {
	var out []json.RawMessage
	for q := 1; q <= 12; q++ {
		out = append(out, json.RawMessage(fmt.Sprintf(`{"qty":%d}`, q)))
	}
	out = append(out, json.RawMessage(`{"qty":4,"place":"video"}`), json.RawMessage(`{"qty":4,"place":"office"}`))
	for h := 9; h <= 12; h++ {
		out = append(out, json.RawMessage(fmt.Sprintf(`{"meeting_time":{"start":"2026-12-10T%02d:00:00Z","end":"2026-12-10T%02d:30:00Z"}}`, h, h)))
	}
	return out
}()

func slot(h int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"start":"2026-12-11T%02d:00:00Z","end":"2026-12-11T%02d:30:00Z"}`, h, h))
}

// accepted says whether the protocol (and pace, with lastTabled) takes v
// from side at `at` with some valid arguments, and the last refusal if not.
func accepted(r *Room, pace Pace, lastTabled time.Time, side Side, v Verdict, at time.Time) (bool, error) {
	var last error
	try := func(err error) bool {
		if err == nil {
			err = pace.Check(r, side, v, lastTabled, at)
		}
		if err != nil {
			last = err
			return false
		}
		return true
	}
	switch v {
	case VerdictOffer, VerdictCounter:
		for _, c := range truthCandidates {
			if _, _, err := r.Propose(side, Move{Verdict: v, Subject: c}, at); try(err) {
				return true, nil
			}
		}
	case VerdictNeedMoreDetail:
		for _, f := range []string{"qty", "meeting_time"} {
			if _, _, err := r.Propose(side, Move{Verdict: v, Fields: []string{f}}, at); try(err) {
				return true, nil
			}
		}
	case VerdictApprove:
		hashes := []SubjectHash{"sha256:0000000000000000000000000000000000000000000000000000000000000000"}
		if r.Table != nil {
			hashes = r.Table.Hashes()
		}
		for _, h := range hashes {
			if _, _, err := r.Request(side, v, h, "truth", at, Announced); try(err) {
				return true, nil
			}
		}
	default:
		if _, _, err := r.Request(side, v, "", "truth", at, Announced); try(err) {
			return true, nil
		}
	}
	return false, last
}

// TestNextIsTruthful: in every reachable state, for both sides, a verdict
// is in next.verdicts exactly when the room (with the service's pace)
// accepts it now with valid arguments.
func TestNextIsTruthful(t *testing.T) {
	var (
		aLim    = []byte(`{"qty":{"max":9}}`)
		bLim    = []byte(`{"qty":{"min":2}}`)
		options = []json.RawMessage{qty1, qty2, qty3}
	)
	h0 := func(p *play) SubjectHash { return p.r.Table.Options[0].Hash() }
	type state struct {
		name  string
		build func(t *testing.T) *play
		pace  Pace
		later time.Duration // how long after the last move the room is asked
	}
	pre := func(req OpenRequest) OpenRequest { req.Preapprove, req.PreapprovalID = true, "pre"; return req }
	states := []state{
		// draft
		{name: "draft, no terms", build: func(t *testing.T) *play { return openPlay(t, OpenRequest{Limits: aLim}) }},
		{name: "draft, opening subject", build: func(t *testing.T) *play { return openPlay(t, OpenRequest{Subject: qty1}) }},
		{name: "draft, opening options", build: func(t *testing.T) *play { return openPlay(t, OpenRequest{Options: options}) }},
		{name: "draft, options + preapprove pending", build: func(t *testing.T) *play { return openPlay(t, pre(OpenRequest{Options: options})) }},
		{name: "draft, options + preapprove confirmed", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.decide(SideA, "pre", true)
			return p
		}},
		{name: "draft, options + preapprove declined", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.decide(SideA, "pre", false)
			return p
		}},
		{name: "draft, one slot", build: func(t *testing.T) *play {
			return openPlay(t, OpenRequest{Slots: []json.RawMessage{slot(9)}})
		}},
		{name: "draft, three slots + preapprove", build: func(t *testing.T) *play {
			return openPlay(t, pre(OpenRequest{Slots: []json.RawMessage{slot(9), slot(10), slot(11)}}))
		}},
		{name: "draft, offer after open", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{})
			p.propose(SideA, Move{Verdict: VerdictOffer, Subject: qty2})
			return p
		}},
		{name: "draft, cancel pending, no terms", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{})
			p.request(SideA, VerdictCancel, "", "c")
			return p
		}},
		{name: "draft, cancel declined, terms", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Subject: qty1})
			p.request(SideA, VerdictCancel, "", "c")
			p.decide(SideA, "c", false)
			return p
		}},
		{name: "draft, invitation expired (not swept)", later: InvitationTTL, build: func(t *testing.T) *play { return openPlay(t, OpenRequest{}) }},
		// awaiting, nothing on the table
		{name: "joined, nothing on the table", build: func(t *testing.T) *play { return joined(t, nil) }},
		{name: "joined, nothing; a's cancel pending", build: func(t *testing.T) *play {
			p := joined(t, nil)
			p.request(SideA, VerdictCancel, "", "c")
			return p
		}},
		{name: "joined, nothing; b's cancel pending", build: func(t *testing.T) *play {
			p := joined(t, nil)
			p.request(SideB, VerdictCancel, "", "c")
			return p
		}},
		{name: "slots room joined without schema", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Slots: []json.RawMessage{slot(9), slot(10)}})
			p.join(nil, nil)
			return p
		}},
		// terms on the table
		{name: "a's opening subject, b's turn", build: func(t *testing.T) *play { return joined(t, qty1) }},
		{name: "a offered after join, b's turn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Limits: aLim})
			p.join(qtySchema, bLim)
			p.propose(SideA, Move{Verdict: VerdictOffer, Subject: qty3})
			return p
		}},
		{name: "b countered, a's turn", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			return p
		}},
		{name: "b asked need_more_detail, a's turn on own terms", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			return p
		}},
		{name: "b's approve pending (b's turn)", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, h0(p), "b1")
			return p
		}},
		{name: "b's reject pending (b's turn)", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictReject, "", "b1")
			return p
		}},
		{name: "b's approve pending, a's cancel pending", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, h0(p), "b1")
			p.request(SideA, VerdictCancel, "", "a1")
			return p
		}},
		{name: "b's approve declined", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, h0(p), "b1")
			p.decide(SideB, "b1", false)
			return p
		}},
		{name: "b approved (confirmed), a's turn", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, h0(p))
			return p
		}},
		{name: "b approved, a need_more_detail, b's turn with own approval", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, h0(p))
			p.propose(SideA, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			return p
		}},
		{name: "b approved, a's approve pending", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, h0(p))
			p.request(SideA, VerdictApprove, h0(p), "a1")
			return p
		}},
		{name: "b countered, b's cancel pending out of turn", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			p.request(SideB, VerdictCancel, "", "b1")
			return p
		}},
		{name: "b's cancel pending on b's turn, terms on the table", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictCancel, "", "b1")
			return p
		}},
		{name: "b's approve pending, then b need_more_detail, a's turn", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, h0(p), "b1")
			p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			return p
		}},
		{name: "b's approve came out void (b asked need_more_detail meanwhile)", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, h0(p), "b1")
			p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			if res, _ := p.decide(SideB, "b1", true); res != ResultVoid {
				t.Fatalf("decide: %s", res)
			}
			return p
		}},
		{name: "preapprove pending, b asked need_more_detail, a's turn", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.join(qtySchema, nil)
			p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			return p
		}},
		// options
		{name: "a's options on the table, b's turn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Options: options})
			p.join(qtySchema, nil)
			return p
		}},
		{name: "b approved one of a's options, a's turn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Options: options})
			p.join(qtySchema, nil)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[1].Hash())
			return p
		}},
		{name: "preapprove pending at the join, b's turn", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.join(qtySchema, nil)
			return p
		}},
		{name: "preapprove pending, b approved one option, a's turn", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.join(qtySchema, nil)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[1].Hash())
			return p
		}},
		{name: "preapproved, b asked need_more_detail, a's turn", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.decide(SideA, "pre", true)
			p.join(qtySchema, nil)
			p.propose(SideB, Move{Verdict: VerdictNeedMoreDetail, Fields: []string{"qty"}})
			return p
		}},
		{name: "b countered with options, a's turn", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Options: []json.RawMessage{qty2, qty3}})
			return p
		}},
		// no deal possible
		{name: "no deal possible (required field), a's turn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":10}}`)})
			p.join(qtySchema, []byte(`{"qty":{"max":5}}`))
			return p
		}},
		{name: "no deal possible, a offered, b's turn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Limits: []byte(`{"qty":{"min":10}}`)})
			p.join(qtySchema, []byte(`{"qty":{"max":5}}`))
			p.propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"qty":11}`)})
			return p
		}},
		{name: "no deal possible on an optional field", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{Limits: []byte(`{"place":{"one_of":["office"]}}`)})
			p.join(qtySchema, []byte(`{"place":{"one_of":["video"]}}`))
			return p
		}},
		{name: "b's limits fit only the terms on the table", build: func(t *testing.T) *play {
			one := []byte(`{"qty":{"type":"int","label":"Quantity"}}`)
			p := openPlay(t, OpenRequest{Schema: one, Subject: qty1})
			p.join(one, []byte(`{"qty":{"min":1,"max":1}}`))
			return p
		}},
		// final
		{name: "agreed", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, h0(p))
			p.confirm(SideA, VerdictApprove, h0(p))
			return p
		}},
		{name: "agreed by preapproval", build: func(t *testing.T) *play {
			p := openPlay(t, pre(OpenRequest{Options: options}))
			p.decide(SideA, "pre", true)
			p.join(qtySchema, nil)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[2].Hash())
			return p
		}},
		{name: "closed: rejected", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictReject, "")
			return p
		}},
		{name: "closed: cancelled", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideA, VerdictCancel, "")
			return p
		}},
		{name: "closed: withdrawn", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{})
			p.confirm(SideA, VerdictCancel, "")
			return p
		}},
		{name: "closed: expired", build: func(t *testing.T) *play {
			p := openPlay(t, OpenRequest{})
			r, ev, err := p.r.CloseDue(t0.Add(InvitationTTL))
			p.ok(r, ev, err)
			return p
		}},
		{name: "closed: lapsed", build: func(t *testing.T) *play {
			p := joined(t, qty1)
			r, ev, err := p.r.CloseDue(p.r.Deadline)
			p.ok(r, ev, err)
			return p
		}},
		{name: "awaiting past the deadline (not swept)", later: DefaultDeadline, build: func(t *testing.T) *play { return joined(t, qty1) }},
		// pace
		{name: "cool-down: a countered, b countered, a's turn", pace: Pace{Cooldown: time.Hour}, build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			return p
		}},
		{name: "cool-down, b approved, a's turn", pace: Pace{Cooldown: time.Hour}, build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, h0(p))
			return p
		}},
		{name: "cool-down over", pace: Pace{Cooldown: time.Hour}, later: 2 * time.Hour, build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			return p
		}},
		{name: "cool-down, nothing on the table", pace: Pace{Cooldown: time.Hour}, build: func(t *testing.T) *play { return joined(t, nil) }},
		{name: "cool-down, a's approve pending on a's turn", pace: Pace{Cooldown: time.Hour}, build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			p.request(SideA, VerdictApprove, h0(p), "a1")
			return p
		}},
		{name: "round cap reached, a's turn", pace: Pace{MaxRounds: 2}, build: func(t *testing.T) *play {
			p := joined(t, qty1)
			p.propose(SideB, Move{Verdict: VerdictCounter, Subject: qty2})
			return p
		}},
		{name: "round cap reached, draft with opening terms", pace: Pace{MaxRounds: 1}, build: func(t *testing.T) *play {
			return openPlay(t, OpenRequest{Subject: qty1})
		}},
	}
	for _, s := range states {
		t.Run(s.name, func(t *testing.T) {
			p := s.build(t)
			at := p.at.Add(time.Second + s.later)
			for _, side := range []Side{SideA, SideB} {
				if p.r.State == StateDraft && side == SideB {
					continue // b has no seat yet: it joins, it does not move
				}
				last := LastTabled(p.events, side)
				n, _ := s.pace.Next(p.r, side, last, at)
				if _, due := p.r.Due(at); s.pace == (Pace{}) && !due && !slices.Equal(n.Verdicts, p.r.Next(side).Verdicts) {
					t.Fatalf("the zero pace changes next")
				}
				if testing.Verbose() {
					t.Logf("%s: %v %q", side, n.Verdicts, n.Say)
				}
				for _, v := range agentVerdicts {
					listed := slices.Contains(n.Verdicts, v)
					ok, why := accepted(p.r, s.pace, last, side, v, at)
					key := s.name + "/" + string(side) + "/" + string(v)
					_, known := knownLies[key]
					lie := listed != ok
					switch {
					case lie && known:
						t.Logf("known: %s: %s", key, knownLies[key])
					case listed && !ok:
						t.Errorf("%s: next lists %s, refused: %v\n  next: %v %q", side, v, why, n.Verdicts, n.Say)
					case !listed && ok:
						t.Errorf("%s: next omits %s, accepted\n  next: %v %q", side, v, n.Verdicts, n.Say)
					case known:
						t.Errorf("%s: next is truthful about %s now: drop it from knownLies", side, v)
					}
				}
				// The sentence names no tabling move the verdicts leave out
				// (what follows it, the cool-down's or the cap's words, says
				// what is held back).
				say := n.Say
				for _, tail := range []string{" You may counter again from", " This room reached its cap"} {
					say, _, _ = strings.Cut(say, tail)
				}
				named := false
				for v, words := range map[Verdict][]string{
					VerdictOffer:          {"(offer)", "offer terms"},
					VerdictCounter:        {", counter", "or counter"},
					VerdictNeedMoreDetail: {"ask for more detail"},
				} {
					for _, w := range words {
						if !strings.Contains(say, w) || slices.Contains(n.Verdicts, v) {
							continue
						}
						named = true
						if knownSay[s.name+"/"+string(side)] == "" {
							t.Errorf("%s: say names %s (%q), verdicts %v leave it out: %q", side, v, w, n.Verdicts, n.Say)
						}
					}
				}
				if why := knownSay[s.name+"/"+string(side)]; why != "" && !named {
					t.Errorf("%s: the sentence is truthful now: drop it from knownSay", side)
				} else if why != "" {
					t.Logf("known: %s", why)
				}
			}
		})
	}
}

// knownLies are the states where next is not truthful yet, each with why
// (state name/side/verdict). A fix makes the test fail until its entry goes.
var knownLies = map[string]string{}

// knownSay are the states whose sentence names a move its verdicts leave
// out.
var knownSay = map[string]string{}
