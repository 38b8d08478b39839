package trust

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// roomState is one room as the sequential specification sees it, written
// from docs/protocol.md rather than from the code it checks: its state,
// round, turn, the terms on the table, both sides' approvals and waiting
// confirmations, and the latest move (a retry of it is answered with the
// room as it is, not applied again and not refused).
type roomState struct {
	opened, joined bool
	state          string
	round          int
	turn           string
	table          string
	tableRound     int // the round that tabled the terms on the table
	approvals      [2]string
	pending        [2]confirmation
	last           string // the latest event when it is an agent's move: side, verdict, terms
}

type confirmation struct {
	cid, verdict, hash string
	tableRound         int
}

// view is the room as side sees it.
func (s roomState) view(side string) roomView {
	return roomView{state: s.state, round: s.round, turn: s.turn, table: s.table, approvals: s.approvals,
		pending: s.pending[sideIndex(side)].cid}
}

// roomModel is porcupine's model of one room; a history is partitioned by
// room, each room checked on its own.
var roomModel = porcupine.Model{
	Partition: partitionByRoom,
	Init:      func() any { return roomState{} },
	Step: func(state, input, output any) (bool, any) {
		return stepRoom(state.(roomState), input.(histIn), output.(histOut))
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(histIn), output.(histOut)
		call := fmt.Sprintf("%s %s %s %.12s %.8s", in.side, in.kind, in.verdict, in.hash, in.cid)
		switch {
		case !out.known:
			return call + " → ?"
		case out.refused != "":
			return call + " → refused: " + out.refused
		}
		return fmt.Sprintf("%s → %+v %s %s", call, out.view, out.cid, out.result)
	},
	DescribeState: func(state any) string { return fmt.Sprintf("%+v", state) },
}

func partitionByRoom(ops []porcupine.Operation) [][]porcupine.Operation {
	byRoom := map[int][]porcupine.Operation{}
	var order []int
	for _, op := range ops {
		r := op.Input.(histIn).room
		if _, ok := byRoom[r]; !ok {
			order = append(order, r)
		}
		byRoom[r] = append(byRoom[r], op)
	}
	out := make([][]porcupine.Operation, 0, len(order))
	for _, r := range order {
		out = append(out, byRoom[r])
	}
	return out
}

// stepRoom takes one call. A call without a definite answer is applied if
// the room allows it and changes nothing if not: placed last, that is the
// same as never applied, so the checker weighs both. A refusal is right
// only when the room allows neither the call nor a retry of its latest
// move; an answer must be the room after the call (or, for a retry, the
// room as it is).
func stepRoom(s roomState, in histIn, out histOut) (bool, any) {
	if in.kind == "read" {
		return out.known && out.refused == "" && out.view == s.view(in.side), s
	}
	next, result, applies, retry := s.take(in, out)
	switch {
	case !out.known && applies:
		return true, next
	case !out.known:
		return true, s
	case out.refused != "":
		return !applies && !retry, s
	case applies:
		return answers(next, in, out, result), next
	case retry:
		if in.kind == "request" && s.pending[sideIndex(in.side)].cid == "" {
			// The request applied without an answer: its id is learnt now.
			s.pending[sideIndex(in.side)].cid = out.cid
		}
		return answers(s, in, out, ""), s
	}
	return false, s
}

// answers: is out what side is told of room s after in? A human's answer
// is told its result and the room's state; the others the room as their
// side sees it (a request, the confirmation waiting).
func answers(s roomState, in histIn, out histOut, result string) bool {
	if in.kind == "decide" {
		return out.result == result && out.view.state == s.state
	}
	return out.view == s.view(in.side) && (in.kind != "request" || out.cid == out.view.pending)
}

// take is the room after in, if the room allows it (applies), or whether in
// repeats what the room already holds (retry: answered, not applied).
func (s roomState) take(in histIn, out histOut) (next roomState, result string, applies, retry bool) {
	me := sideIndex(in.side)
	n := s
	switch in.kind {
	case "open":
		if s.opened {
			return s, "", false, false
		}
		n.opened, n.state, n.turn, n.last = true, "draft", "", in.side+" open "+in.hash
		if in.hash != "" {
			n.round, n.table, n.tableRound = 1, in.hash, 1
		}
		return n, "", true, false
	case "join":
		if !s.opened || s.state != "draft" {
			return s, "", false, s.joined
		}
		n.joined, n.state, n.turn, n.last = true, "awaiting", "a", "b join"
		if s.table != "" {
			n.turn = "b"
		}
		return n, "", true, false
	case "propose":
		fp := in.side + " " + in.verdict + " " + in.hash
		ok := s.state == "awaiting" && s.turn == in.side
		switch in.verdict {
		case "offer":
			ok = ok && s.table == ""
		case "counter", "need_more_detail":
			ok = ok && s.table != ""
		default:
			ok = false
		}
		if !ok {
			return s, "", false, s.last == fp
		}
		n.round++
		n.turn, n.last = other(in.side), fp
		if in.verdict != "need_more_detail" {
			n.table, n.tableRound, n.approvals = in.hash, n.round, [2]string{}
			for i, c := range n.pending {
				if c.verdict != "cancel" {
					n.pending[i] = confirmation{}
				}
			}
		}
		return n, "", true, false
	case "request":
		if p := s.pending[me]; p.verdict == in.verdict && p.hash == in.hash && p.verdict != "" {
			return s, "", false, true
		}
		if !s.confirmable(in.side, in.verdict, in.hash) {
			return s, "", false, false
		}
		c := confirmation{cid: out.cid, verdict: in.verdict, hash: in.hash}
		if in.verdict != "cancel" {
			c.tableRound = s.tableRound
		}
		n.pending[me], n.last = c, ""
		return n, "", true, false
	case "decide":
		c := s.pending[me]
		if c.cid == "" || c.cid != in.cid || c.hash != in.hash {
			return s, "", false, false // no longer pending
		}
		n.pending[me], n.last = confirmation{}, ""
		switch {
		case !in.accept:
			return n, "declined", true, false
		case !s.confirmable(in.side, c.verdict, c.hash) || (c.verdict != "cancel" && s.tableRound != c.tableRound):
			return n, "void", true, false
		}
		switch c.verdict {
		case "reject", "cancel":
			n.state, n.turn = "closed", ""
		case "approve":
			n.approvals[me], n.turn = c.hash, other(in.side)
			if n.approvals[0] != "" && n.approvals[0] == n.approvals[1] {
				n.state, n.turn, n.pending = "agreed", "", [2]confirmation{}
			}
		}
		return n, "applied", true, false
	}
	return s, "", false, false
}

// confirmable: may side ask its human for verdict on hash now (cancel out
// of turn, the others in turn and on the terms on the table)?
func (s roomState) confirmable(side, verdict, hash string) bool {
	switch {
	case s.state != "awaiting" && !(s.state == "draft" && verdict == "cancel" && side == "a"):
		return false
	case verdict == "cancel":
		return true
	case s.turn != side || s.table == "":
		return false
	case verdict == "approve":
		return hash == s.table
	}
	return verdict == "reject"
}
