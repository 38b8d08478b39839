package app

import (
	"encoding/json"
	"testing"
)

// BenchmarkMoveUnder8Writers: need_more_detail moves (a durable move each:
// lock, restore, decide, log, update, commit) on 8 rooms at once, one
// writer per room, both sides alternating. Report statements per move with
// pg_stat_statements or the log; this gives time per move.
func BenchmarkMoveUnder8Writers(b *testing.B) {
	rb := setupRoomsB(b)
	type pair struct{ ta, tb string }
	pairs := make(chan pair, 8)
	for range 8 {
		ta, tb := rb.openJoinedB(b)
		if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
			b.Fatal(err)
		}
		pairs <- pair{ta, tb}
	}
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 writers
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p := <-pairs
		turnB := true
		for pb.Next() {
			agent, token := rb.a, p.ta
			if turnB {
				agent, token = rb.b, p.tb
			}
			if _, err := rb.rooms.Propose(rb.ctx, agent, token, MoveInput{Verdict: "need_more_detail"}); err != nil {
				b.Error(err)
				return
			}
			turnB = !turnB
		}
	})
}

func (rb *roomsBundle) openJoinedB(b *testing.B) (string, string) {
	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		b.Fatal(err)
	}
	j, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: json.RawMessage(meetingSchema)})
	if err != nil {
		b.Fatal(err)
	}
	return open.RoomToken, j.RoomToken
}
