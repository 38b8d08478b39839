package trust

import (
	"math"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestRoomModel shows that the history check can fail: hand-written
// histories of one room, some that one order of the calls explains and
// some that none does (a read that sees the round go back, a move
// acknowledged twice at different rounds, a retry refused), each expected
// to come out as it must.
func TestRoomModel(t *testing.T) {
	const h1, h2, c1, c2 = "sha256:h1", "sha256:h2", "conf-1", "conf-2"
	op := func(call, ret int64, in histIn, out histOut) porcupine.Operation {
		if ret < 0 {
			ret = math.MaxInt64
		}
		return porcupine.Operation{Input: in, Call: call, Output: out, Return: ret}
	}
	answer := func(v roomView) histOut { return histOut{known: true, view: v} }
	opened := roomView{state: "draft", round: 1, table: h1}
	joined := roomView{state: "awaiting", round: 1, turn: "b", table: h1}
	countered := roomView{state: "awaiting", round: 2, turn: "a", table: h2}
	start := []porcupine.Operation{
		op(0, 1, histIn{side: "a", kind: "open", hash: h1}, answer(opened)),
		op(2, 3, histIn{side: "b", kind: "join"}, answer(joined)),
	}
	counter := histIn{side: "b", kind: "propose", verdict: "counter", hash: h2}
	read := func(side string) histIn { return histIn{side: side, kind: "read"} }
	pendingA := countered
	pendingA.pending = c1
	approvedA := roomView{state: "awaiting", round: 2, turn: "b", table: h2, approvals: [2]string{h2, ""}, pending: c2}
	agreed := roomView{state: "agreed", round: 2, table: h2, approvals: [2]string{h2, h2}}
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"a whole negotiation", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, read("a"), answer(countered)),
			op(8, 9, histIn{side: "a", kind: "request", verdict: "approve", hash: h2}, histOut{known: true, view: pendingA, cid: c1}),
			op(10, 11, histIn{side: "a", kind: "decide", hash: h2, cid: c1, accept: true}, histOut{known: true, view: roomView{state: "awaiting"}, result: "applied"}),
			op(12, 13, histIn{side: "b", kind: "request", verdict: "approve", hash: h2}, histOut{known: true, view: approvedA, cid: c2}),
			op(14, 15, histIn{side: "b", kind: "decide", hash: h2, cid: c2, accept: true}, histOut{known: true, view: roomView{state: "agreed"}, result: "applied"}),
			op(16, 17, read("a"), answer(agreed)),
		}, porcupine.Ok},
		{"a read that sees the round go back", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, read("b"), answer(roomView{state: "awaiting", round: 1, turn: "b", table: h1})),
		}, porcupine.Illegal},
		{"a move acknowledged twice at different rounds", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, counter, answer(roomView{state: "awaiting", round: 3, turn: "a", table: h2})),
		}, porcupine.Illegal},
		{"a retry answered with the room as it is", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, counter, answer(countered)),
		}, porcupine.Ok},
		{"a retry refused", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, counter, refusal("not your turn")),
		}, porcupine.Illegal},
		{"a move without an answer, seen", []porcupine.Operation{
			op(4, -1, counter, unknown()),
			op(6, 7, read("a"), answer(countered)),
		}, porcupine.Ok},
		{"a move without an answer, never seen", []porcupine.Operation{
			op(4, -1, counter, unknown()),
			op(6, 7, read("a"), answer(joined)),
			op(8, 9, read("b"), answer(joined)),
		}, porcupine.Ok},
		{"a move without an answer, seen and then not", []porcupine.Operation{
			op(4, -1, counter, unknown()),
			op(6, 7, read("a"), answer(countered)),
			op(8, 9, read("b"), answer(joined)),
		}, porcupine.Illegal},
		{"reads overlapping a move, one before it and one after", []porcupine.Operation{
			op(4, 10, counter, answer(countered)),
			op(5, 9, read("a"), answer(countered)),
			op(6, 8, read("b"), answer(joined)),
		}, porcupine.Ok},
		{"a read after the move that does not see it", []porcupine.Operation{
			op(4, 5, counter, answer(countered)),
			op(6, 7, read("a"), answer(joined)),
		}, porcupine.Illegal},
		{"a human's approval of terms countered since", []porcupine.Operation{
			op(4, 5, histIn{side: "b", kind: "request", verdict: "approve", hash: h1}, histOut{known: true, view: roomView{state: "awaiting", round: 1, turn: "b", table: h1, pending: c1}, cid: c1}),
			op(6, 7, counter, answer(countered)),
			op(8, 9, histIn{side: "b", kind: "decide", hash: h1, cid: c1, accept: true}, histOut{known: true, view: roomView{state: "awaiting"}, result: "applied"}),
		}, porcupine.Illegal},
		{"a cancel confirmed", []porcupine.Operation{
			op(4, 5, histIn{side: "a", kind: "request", verdict: "cancel"}, histOut{known: true, view: roomView{state: "awaiting", round: 1, turn: "b", table: h1, pending: c1}, cid: c1}),
			op(6, 7, histIn{side: "a", kind: "decide", cid: c1, accept: true}, histOut{known: true, view: roomView{state: "closed"}, result: "applied"}),
			op(8, 9, read("b"), answer(roomView{state: "closed", round: 1, table: h1})),
		}, porcupine.Ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ops := append(append([]porcupine.Operation(nil), start...), tc.ops...)
			if got := porcupine.CheckOperationsTimeout(roomModel, ops, 0); got != tc.want {
				t.Errorf("check: %s, want %s", got, tc.want)
			}
		})
	}
}
