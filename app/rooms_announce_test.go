package app

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAnnouncements: every room a committed change touched reaches a
// listener on RoomChannel, and so does every room announced at once from
// many goroutines (batched, each at least once, all sent when Close
// returns); a refused move and a failed transaction announce nothing.
func TestAnnouncements(t *testing.T) {
	t.Parallel()
	rb := setupRoomsB(t)
	ctx, cancel := context.WithTimeout(rb.ctx, 20*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, rb.pool.Config().ConnConfig.Copy())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+RoomChannel); err != nil {
		t.Fatal(err)
	}
	heard := map[int64]int{}
	// hear waits for notifications until every room in want was heard.
	hear := func(want ...int64) {
		t.Helper()
		for {
			missing := false
			for _, id := range want {
				missing = missing || heard[id] == 0
			}
			if !missing {
				return
			}
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				t.Fatalf("waiting for %v, heard %v: %v", want, heard, err)
			}
			id, _ := strconv.ParseInt(n.Payload, 10, 64)
			heard[id]++
		}
	}

	open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	room := open.View.RoomID
	hear(room)
	joined, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	heard[room] = 0
	hear(room)

	// A move the protocol refuses (b counters with nothing on the table)
	// rolls back, and is not announced.
	heard[room] = 0
	if _, err := rb.rooms.Propose(rb.ctx, rb.b, joined.RoomToken, MoveInput{Verdict: "counter", Subject: meeting(10, "20.00")}); err == nil {
		t.Fatal("b countered nothing")
	}
	// Nor is a transaction that changed a room and then failed.
	if err := rb.rooms.inTx(rb.ctx, func(tx *roomTx) error {
		tx.changed = append(tx.changed, room)
		return errors.New("rolled back")
	}); err == nil {
		t.Fatal("the failed transaction committed")
	}
	var many []int64
	for i := range 200 {
		many = append(many, int64(1_000_000+i%50)) // each id four times
	}
	var wg sync.WaitGroup
	for i := 0; i < len(many); i += 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rb.rooms.announcer.add(many[i : i+20])
		}()
	}
	wg.Wait()
	rb.rooms.Close() // everything added is sent by now
	if a := rb.rooms.announcer; a.draining || len(a.pending) != 0 {
		t.Errorf("Close returned with %d rooms unannounced", len(a.pending))
	}
	hear(many...)
	if heard[room] != 0 {
		t.Errorf("a refused move or a failed transaction was announced (%d times)", heard[room])
	}
}
