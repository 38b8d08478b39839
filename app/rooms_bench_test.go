package app

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// BenchmarkMoveUnder8Writers: need_more_detail moves (a durable move each:
// lock, restore, decide, log, update, commit) on 8 rooms at once, one
// writer per room, both sides alternating. Report statements per move with
// pg_stat_statements or the log; this gives time per move, and, as
// BenchmarkReadKept, the CPU per move of this process (go-µs/op) and of
// the database's backends (pg-µs/op), which a busy machine disturbs less.
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
	pg0, go0 := backendsCPU(rb.ctx, b, rb.pool), selfCPU()
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
	b.StopTimer()
	reportCPU(rb.ctx, b, rb.pool, pg0, go0)
}

// BenchmarkMoveSeat: a move's first statement alone (the seat, the room
// locked, with what the move may need to tell the parties), each in a
// transaction rolled back, 8 at once on rooms of their own; with the CPU
// per statement of this process and of the database (as BenchmarkReadKept).
func BenchmarkMoveSeat(b *testing.B) {
	rb := setupRoomsB(b)
	type seat struct {
		agent Agent
		hash  []byte
	}
	seats := make(chan seat, 8)
	for range 4 {
		ta, tb := rb.openJoinedB(b)
		if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
			b.Fatal(err)
		}
		seats <- seat{rb.a, secretHash(ta)}
		seats <- seat{rb.b, secretHash(tb)}
	}
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 movers
	pg0, go0 := backendsCPU(rb.ctx, b, rb.pool), selfCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := <-seats
		for pb.Next() {
			tx, err := rb.pool.Begin(rb.ctx)
			if err != nil {
				b.Error(err)
				return
			}
			_, _, err = selectSeat(rb.ctx, tx, seatHash{token: s.hash}, s.agent.AccountID, s.agent.OwnerUserID, true)
			_ = tx.Rollback(rb.ctx)
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	reportCPU(rb.ctx, b, rb.pool, pg0, go0)
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

// BenchmarkReadKept: negotiation_read of rooms nothing changed (the kept
// view holds: one statement checks it), 8 readers at once, each on a side
// of its own. Besides the time per read (about half the CPU a read costs
// on 2 cores, when nothing else runs) it reports the CPU per read of this
// process (go-µs/op) and of the database's backends (pg-µs/op), which a
// busy machine disturbs less.
func BenchmarkReadKept(b *testing.B) {
	rb := setupRoomsB(b)
	type seat struct {
		agent Agent
		token string
	}
	seats := make(chan seat, 8)
	for range 4 {
		ta, tb := rb.openJoinedB(b)
		if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
			b.Fatal(err)
		}
		for _, s := range []seat{{rb.a, ta}, {rb.b, tb}} {
			if _, err := rb.rooms.Read(rb.ctx, s.agent, s.token); err != nil { // keeps the view
				b.Fatal(err)
			}
			seats <- s
		}
	}
	b.SetParallelism(4) // 4 × GOMAXPROCS(2) = 8 readers
	b.ReportAllocs()
	pg0, go0 := backendsCPU(rb.ctx, b, rb.pool), selfCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := <-seats
		for pb.Next() {
			if _, err := rb.rooms.Read(rb.ctx, s.agent, s.token); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	reportCPU(rb.ctx, b, rb.pool, pg0, go0)
}

// reportCPU reports the CPU per op of the database's backends (pg-µs/op)
// and of this process (go-µs/op) since backendsCPU gave pg0 and selfCPU go0.
func reportCPU(ctx context.Context, b *testing.B, pool *pgxpool.Pool, pg0 map[int32]time.Duration, go0 time.Duration) {
	var pg time.Duration
	for pid, cpu := range backendsCPU(ctx, b, pool) {
		pg += cpu - pg0[pid]
	}
	b.ReportMetric(float64(pg.Microseconds())/float64(b.N), "pg-µs/op")
	b.ReportMetric(float64((selfCPU()-go0).Microseconds())/float64(b.N), "go-µs/op")
}

// backendsCPU is the CPU time of each backend serving pool's database but
// the one asking, from /proc (the database on this host).
func backendsCPU(ctx context.Context, b *testing.B, pool *pgxpool.Pool) map[int32]time.Duration {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	out := map[int32]time.Duration{}
	for _, pid := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
		if err != nil {
			b.Skipf("PostgreSQL's backends are not on this host: %v", err)
		}
		// utime and stime, in clock ticks (100 a second), are the 14th and
		// 15th fields; the 2nd, the command, ends with the last ")".
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		out[pid] = time.Duration(ut+st) * 10 * time.Millisecond
	}
	return out
}

// selfCPU is this process's CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
